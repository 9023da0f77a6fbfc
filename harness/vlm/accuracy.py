"""Accuracy of TextVQA answers: three readings of "VQA soft matching".

The contest does not publish its formula (docs/vlm.md, "Accuracy"), so three
figures are reported and the profile names the headline:

- ``vqa``: the TextVQA/VQAv2 standard. Answers are normalised the EvalAI way
  (punctuation, digits for number words, articles and contractions), then for
  each of the 10 leave-one-out subsets of the ground truths the score is
  min(1, matches / 3); the sample's accuracy is the mean over the subsets. A
  sentence answer ("The sign says STOP.") scores ~0 under it.
- ``containment``: 1 when any normalised ground-truth answer appears, on word
  boundaries, inside the normalised prediction.
- ``yes_no``: for questions whose ground truths are yes/no, 1 when the
  prediction's first yes/no word matches any ground truth (any-match).

Pure functions over strings; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_CONTRACTIONS = {
    "aint": "ain't", "arent": "aren't", "cant": "can't", "couldve": "could've",
    "couldnt": "couldn't", "didnt": "didn't", "doesnt": "doesn't", "dont": "don't",
    "hadnt": "hadn't", "hasnt": "hasn't", "havent": "haven't", "hed": "he'd",
    "hes": "he's", "howd": "how'd", "howll": "how'll", "hows": "how's", "Im": "I'm",
    "Ive": "I've", "isnt": "isn't", "itd": "it'd", "itll": "it'll", "let's": "let's",
    "maam": "ma'am", "mightve": "might've", "mustve": "must've", "mustnt": "mustn't",
    "neednt": "needn't", "shant": "shan't", "shed": "she'd", "shes": "she's",
    "shouldve": "should've", "shouldnt": "shouldn't", "thats": "that's",
    "thered": "there'd", "theres": "there's", "theyd": "they'd", "theyll": "they'll",
    "theyre": "they're", "theyve": "they've", "wasnt": "wasn't", "wed": "we'd",
    "weve": "we've", "werent": "weren't", "whatll": "what'll", "whatre": "what're",
    "whats": "what's", "whatve": "what've", "whens": "when's", "whered": "where'd",
    "wheres": "where's", "whereve": "where've", "whod": "who'd", "wholl": "who'll",
    "whos": "who's", "whove": "who've", "whyll": "why'll", "whyre": "why're",
    "whys": "why's", "wont": "won't", "wouldve": "would've", "wouldnt": "wouldn't",
    "yall": "y'all", "youd": "you'd", "youll": "you'll", "youre": "you're",
    "youve": "you've",
}  # fmt: skip
_NUMBERS = {
    "none": "0", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4",
    "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
}  # fmt: skip
_ARTICLES = {"a", "an", "the"}
_PUNCT = [
    ";", "/", "[", "]", '"', "{", "}", "(", ")", "=", "+", "\\", "_", "-",
    ">", "<", "@", "`", ",", "?", "!",
]  # fmt: skip
_PERIOD_STRIP = re.compile(r"(?!<=\d)(\.)(?!\d)")
_COMMA_STRIP = re.compile(r"(\d)(,)(\d)")
_YES_NO = {"yes", "no"}


def _punctuation(text: str) -> str:
    out = text
    for p in _PUNCT:
        # A mark touching a space (or a digit comma) is removed; one inside a word becomes a space.
        if (p + " " in text or " " + p in text) or re.search(_COMMA_STRIP, text) is not None:
            out = out.replace(p, "")
        else:
            out = out.replace(p, " ")
    return _PERIOD_STRIP.sub("", out)


def _digits_articles(text: str) -> str:
    words = []
    for word in text.lower().split():
        word = _NUMBERS.get(word, word)
        if word not in _ARTICLES:
            words.append(_CONTRACTIONS.get(word, word))
    return " ".join(words)


def normalize(answer: str) -> str:
    """EvalAI's VQA answer normalisation (lower case, punctuation, numbers, articles)."""
    text = answer.replace("\n", " ").replace("\t", " ").strip()
    return _digits_articles(_punctuation(text))


def vqa_accuracy(prediction: str, answers: Sequence[str]) -> float:
    """Mean over the leave-one-out subsets of min(1, matches / 3)."""
    if not answers:
        return 0.0
    pred = normalize(prediction)
    gts = [normalize(a) for a in answers]
    scores = []
    for i in range(len(gts)):
        others = gts[:i] + gts[i + 1 :]
        matches = sum(1 for g in others if g == pred)
        scores.append(min(1.0, matches / 3))
    return sum(scores) / len(scores)


def contains_answer(prediction: str, answers: Sequence[str]) -> float:
    """1.0 when a normalised ground truth appears on word boundaries in the normalised prediction."""
    pred = f" {normalize(prediction)} "
    for a in answers:
        gt = normalize(a)
        if gt and f" {gt} " in pred:
            return 1.0
    return 0.0


def is_yes_no(answers: Sequence[str]) -> bool:
    norm = {normalize(a) for a in answers}
    return bool(norm) and norm <= _YES_NO


def yes_no_match(prediction: str, answers: Sequence[str]) -> float:
    """First yes/no word of the prediction against any ground truth."""
    first = next((w for w in normalize(prediction).split() if w in _YES_NO), None)
    return 1.0 if first is not None and first in {normalize(a) for a in answers} else 0.0


@dataclass(frozen=True)
class AccuracyFigures:
    n: int  # samples with ground truths
    vqa: float | None
    containment: float | None
    yes_no: float | None  # over yes/no questions only
    yes_no_n: int
    headline: str

    def headline_value(self) -> float | None:
        return {"vqa": self.vqa, "containment": self.containment, "yes_no": self.yes_no}[
            self.headline
        ]


def accuracy(
    pairs: Sequence[tuple[str, Sequence[str]]], headline: str = "containment"
) -> AccuracyFigures:
    """The three figures over (prediction, ground truths) pairs that have ground truths."""
    scored = [(p, a) for p, a in pairs if a]
    yn = [(p, a) for p, a in scored if is_yes_no(a)]
    n = len(scored)
    return AccuracyFigures(
        n=n,
        vqa=sum(vqa_accuracy(p, a) for p, a in scored) / n if n else None,
        containment=sum(contains_answer(p, a) for p, a in scored) / n if n else None,
        yes_no=sum(yes_no_match(p, a) for p, a in yn) / len(yn) if yn else None,
        yes_no_n=len(yn),
        headline=headline,
    )
