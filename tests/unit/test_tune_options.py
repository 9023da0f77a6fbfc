"""SPACE.toml's ``[options]`` against the gate's own option declarations: every field of
:class:`TuneOptions` is a gate option of the same name, type and choices, and every gate
option is either one of them or named in ``NOT_TUNE_OPTIONS`` with why (a gate option added
later is a decision for tune, not a silent gap)."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Literal, Union, get_args, get_origin

from harness.gate.options import GateOption, gate_options
from harness.tune.space.parts import NOT_TUNE_OPTIONS, TuneOptions


def _gate() -> dict[str, GateOption]:
    return {o.key: o for o in gate_options()}


def _base(annotation: object) -> object:
    """``int | None`` → int; a Literal stays itself."""
    if get_origin(annotation) in (Union, types.UnionType):
        (inner,) = [a for a in get_args(annotation) if a is not type(None)]
        return inner
    return annotation


def test_every_option_is_a_gate_option_or_declined_with_why() -> None:
    gate = set(_gate())
    fields = set(TuneOptions.model_fields)
    assert fields <= gate, fields - gate
    assert set(NOT_TUNE_OPTIONS) <= gate, set(NOT_TUNE_OPTIONS) - gate
    assert not fields & set(NOT_TUNE_OPTIONS)
    assert fields | set(NOT_TUNE_OPTIONS) == gate, gate - fields - set(NOT_TUNE_OPTIONS)
    assert all(why.strip() for why in NOT_TUNE_OPTIONS.values())


def test_each_option_has_the_gate_options_type_and_choices() -> None:
    gate = _gate()
    for name, field in TuneOptions.model_fields.items():
        o, kind = gate[name], _base(field.annotation)
        if get_origin(kind) is Literal:
            assert set(get_args(kind)) == set(o.spec.choices or ()), name
        elif kind is bool:
            assert o.switch, name  # a flag without a value: --decide
        elif kind in (int, float):
            assert o.spec.type is not None, name
            assert isinstance(o.spec.type("1"), kind), name  # the gate parses the same number
        else:
            assert kind is str, (name, kind)
            assert o.spec.type in (None, Path), name  # a text (data_dir: a path)


def test_the_mapping_a_trial_passes_has_only_gate_keys() -> None:
    every = TuneOptions(
        runs=3, warmup=0, buckets="short", limit=2.0, max_gen_toks=16, until_ci=5.0,
        until_ci_at="median", data_dir="data", tokenizer="tok", latency_mode="official",
    )  # fmt: skip
    mapping = every.gate()
    assert set(mapping) <= set(_gate())
    assert mapping["data_dir"] == Path("data") and mapping["decide"] is True
