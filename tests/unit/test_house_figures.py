"""bench/house_figures.py's pure parts, on literal text: the repeated-block counter, the
statistic finder, the audit-rule reader, the longest chain; and its copy of the layering
test's import reading, held equal to the test's own on this tree."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from tests.unit import test_layering

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    sys.path.insert(0, str(ROOT / "bench"))  # its siblings (house_layers, …), as a script has
    spec = importlib.util.spec_from_file_location("house_figures", ROOT / "bench/house_figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("house_figures", module)
    spec.loader.exec_module(module)
    return module


hf = _load()

BLOCK = [f"x{i} = f(x{i - 1}, {i})" for i in range(1, 7)]


def test_six_identical_lines_make_a_pair_five_do_not() -> None:
    a = "\n".join(["import os", "def a():", *(f"    {s}" for s in BLOCK), "    return x6"])
    # the same six lines, with other white space, a comment, a blank line, lone
    # punctuation and an import between them: passed over, so still six in a row
    between = ["  # note", "", f"  {BLOCK[1]}", "  from m import n", "  )"]
    b = "\n".join(["def b():", f"  {BLOCK[0]}", *between, *(f"  {s}   " for s in BLOCK[2:])])
    five = "\n".join(["def c():", *(f"    {s}" for s in BLOCK[:5]), "    return 0"])
    found = hf.repeated_blocks({"a.py": a, "b.py": b, "c.py": five})
    assert [(r.a, r.b, r.lines, more) for r, more in found.pairs] == [
        ("a.py:3-8", "b.py:2-11", 6, 0)
    ]
    assert found.runs == 1 and found.too_common == 0


def test_a_block_twice_in_one_file_counts_overlapping_lines_do_not() -> None:
    twice = "\n".join(["def a():", *BLOCK, "def b():", *BLOCK])
    assert [(r.a, r.b) for r, _ in hf.repeated_blocks({"t.py": twice}).pairs] == [
        ("t.py:2-7", "t.py:9-14")
    ]
    # seven equal lines hold two windows of six that overlap: one place, no pair
    assert hf.repeated_blocks({"s.py": "\n".join(["y = 1"] * 7)}).pairs == []


def test_a_block_in_more_than_eight_places_is_too_common_to_list() -> None:
    files = {f"f{i}.py": "\n".join(BLOCK) for i in range(9)}
    found = hf.repeated_blocks(files)
    assert found.pairs == [] and found.too_common == 1
    assert len(hf.repeated_blocks(dict(list(files.items())[:8])).pairs) == 28  # 8 choose 2


SNIPPET = '''
import math
import statistics

LENGTH_MATCH = 0.25
NOISE_LIMIT = NOISE_LIMIT_PAIR
Z = 1.959963984540054


def _median(xs):
    return statistics.median(xs) if xs else None


def score_interval(p, n, z=1.96):
    """Wilson's interval."""
    den = 1 + z * z / n
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return p - half, p + half


def phi(z):
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def tail(k, n, p):
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def walsh(xs):
    pairs = [(xs[i] + xs[j]) / 2 for i in range(len(xs)) for j in range(i, len(xs))]
    return statistics.median(pairs) if pairs else None


def spread(xs):
    """1.4826 x MAD, in words only: the docstring defines nothing."""
    def inner():
        return 1.4826
    return score_interval(0.5, len(xs))
'''


def test_the_statistic_finder_reads_formulas_and_names_not_words_or_callers() -> None:
    found = [(p.statistic, p.where) for p in hf.statistic_places({"m.py": SNIPPET})]
    assert sorted(found) == [
        ("95 % normal quantile", "m.py:14 score_interval"),  # its default z
        ("95 % normal quantile", "m.py:7 Z"),
        ("Hodges-Lehmann", "m.py:29 walsh"),
        ("MAD sigma (1.4826 x MAD)", "m.py:36 inner"),  # the nested def, not spread
        ("Wilson interval", "m.py:14 score_interval"),
        ("audit limit LENGTH_MATCH", "m.py:5 LENGTH_MATCH = 0.25"),  # an alias is not
        ("binomial CDF/tail", "m.py:25 tail"),
        ("median or None", "m.py:10 _median"),
        ("normal CDF", "m.py:21 phi"),
    ]


def test_rule_names_count_in_string_literals_not_docstrings() -> None:
    text = (
        '"""cached_answers and one_stack, in a docstring."""\n'
        f"RULES = {hf.RULES!r}\n"
        'HELP = "one_stack: one server"\n'
        "one_stack_count = 1\n"
    )
    other = '"""one_stack"""\nX = "stream_consistency_plus"\n'
    assert hf.rule_mentions({"a.py": text, "b.py": other}) == {"a.py": set(hf.RULES)}


def test_the_longest_chain_of_units() -> None:
    graph = {"cli": {"gate", "stats"}, "gate": {"latency"}, "latency": {"stats"}, "stats": set()}
    assert hf.longest_chain(graph) == ["cli", "gate", "latency", "stats"]
    assert hf.longest_chain({}) == []


def test_the_copy_reads_the_layers_and_imports_as_the_layering_test() -> None:
    tree = hf.read_tree(None, ROOT)
    layers, sideways = hf.layering_tables(tree[hf.LAYERING_TEST])
    assert layers == test_layering.LAYERS and sideways == set(test_layering.SIDEWAYS)
    graph = hf.unit_graph(hf.package_files(tree), set(layers))
    assert graph == test_layering.folder_graph()
