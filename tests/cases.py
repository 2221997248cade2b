"""The test cases' one format and one loader: a folder holding `old.py`, `new.py` and `case.toml`.

Three kinds of case share that shape, each under its own root:

- `corpus` (tests/corpus/<name>/): what the static diff must say.
      verdict = "incompatible"   # compatible | review | incompatible
      codes = ["AG02"]           # rule codes the diff must raise
      absent = ["AG08"]          # optional: codes it must not raise
      spark = "4.2"              # optional: the Spark version asked about (a version here)
      known_gap = "..."          # optional: streamlint does not give the expected answer yet
      why = "..."
      source = "..."             # where the expectation comes from
- `spark` (tests/spark_cases/<name>/): a restart measured on real Spark by tests/spark_harness.py.
      verdict, codes             # as in the corpus
      spark = "restart-fails"    # the outcome: restart-fails | results-differ | same-results
      error = "STATE_STORE_..."  # optional, restart-fails only: a substring of Spark's error
      why = "..."
      [inputs]                   # optional: env var -> data set (default: STREAMLINT_INPUT
      STREAMLINT_INPUT = "orders"  #   = "orders"; the data sets are spark_harness.DATASETS)
- `confirm` (tests/confirm_jobs/<name>/): what `streamlint diff --confirm` must observe.
      spark = "same-results"     # the outcome, as in spark cases
      error = "..."              # optional, restart-fails only
      family = "aggregation"     # the stateful family the pair stands for
      why = "..."
      warnings = ["dbutils..."]  # optional: what the confirm sandbox has to stub
      queries = 2                # optional: how many streaming queries the pair has (default 1)
      static_blind = true        # optional: the static diff cannot see the change

`spark` means a Spark version in a corpus case and an outcome in the other two: the record has
a field for each (`spark_version`, `outcome`). A key the kind does not know, a missing one or a
value of the wrong kind is refused with the file and the key named.
"""

from __future__ import annotations

import difflib
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, get_args

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

Kind = Literal["corpus", "spark", "confirm"]
KINDS: tuple[Kind, ...] = get_args(Kind)
TESTS = Path(__file__).parent
ROOTS: Mapping[Kind, Path] = MappingProxyType({
    "corpus": TESTS / "corpus",
    "spark": TESTS / "spark_cases",
    "confirm": TESTS / "confirm_jobs",
})
VERDICTS = ("compatible", "review", "incompatible")
OUTCOMES = ("restart-fails", "results-differ", "same-results")
# The data sets tests/spark_harness.py writes as a spark case's inputs (its DATASETS).
DATA_SETS = ("orders", "store_orders", "payments")
DEFAULT_INPUTS: Mapping[str, str] = MappingProxyType({"STREAMLINT_INPUT": "orders"})
_VERSION = re.compile(r"\d+\.\d+(\.\d+)?")


class CaseError(ValueError):
    """A case.toml that does not follow its kind's format."""


@dataclass(frozen=True)
class Case:
    name: str
    root: Path
    kind: Kind
    why: str
    # corpus and spark: the static diff's expected verdict and the codes it must raise
    verdict: str | None = None
    codes: tuple[str, ...] = ()
    # corpus
    absent: tuple[str, ...] = ()
    spark_version: str | None = None  # `spark` in a corpus case.toml
    known_gap: str | None = None
    source: str | None = None
    # spark and confirm: what Spark does on restart
    outcome: str | None = None  # `spark` in a spark or confirm case.toml
    error: str | None = None
    # spark
    inputs: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # confirm
    family: str | None = None
    warnings: tuple[str, ...] = ()
    queries: int = 1
    static_blind: bool = False

    @property
    def old(self) -> Path:
        return self.root / "old.py"

    @property
    def new(self) -> Path:
        return self.root / "new.py"


# ---------------------------------------------------------------------------------------------
# The format: for each kind, case.toml key -> (Case field, value check, required)

Check = Callable[[Any], str | None]  # what is wrong with a value, or None


def _text(value: Any) -> str | None:
    return None if isinstance(value, str) and value.strip() else "must be a non-empty string"


def _texts(value: Any) -> str | None:
    ok = isinstance(value, list) and all(isinstance(v, str) and v for v in value)
    return None if ok else "must be a list of non-empty strings"


def _one_of(allowed: tuple[str, ...]) -> Check:
    return lambda value: None if value in allowed else f"must be one of {allowed}, not {value!r}"


def _version(value: Any) -> str | None:
    ok = isinstance(value, str) and _VERSION.fullmatch(value)
    return None if ok else f"must be a Spark version such as '3.5' or '4.2.0', not {value!r}"


def _inputs(value: Any) -> str | None:
    if not (isinstance(value, dict) and value
            and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())):
        return "must be a table of environment variable = data set name"
    unknown = sorted(set(value.values()) - set(DATA_SETS))
    return f"names unknown data sets {unknown} (known: {DATA_SETS})" if unknown else None


def _count(value: Any) -> str | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
    return None if ok else f"must be a positive integer, not {value!r}"


def _flag(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false, not {value!r}"


@dataclass(frozen=True)
class Key:
    attr: str  # the Case field the key fills
    check: Check
    required: bool = False


_STATIC = {"verdict": Key("verdict", _one_of(VERDICTS), required=True),
           "codes": Key("codes", _texts, required=True)}
_RESTART = {"spark": Key("outcome", _one_of(OUTCOMES), required=True),
            "error": Key("error", _text)}
FORMATS: Mapping[Kind, Mapping[str, Key]] = MappingProxyType({
    "corpus": {**_STATIC, "absent": Key("absent", _texts),
               "spark": Key("spark_version", _version), "known_gap": Key("known_gap", _text),
               "why": Key("why", _text, required=True),
               "source": Key("source", _text, required=True)},
    "spark": {**_STATIC, **_RESTART, "why": Key("why", _text, required=True),
              "inputs": Key("inputs", _inputs)},
    "confirm": {**_RESTART, "family": Key("family", _text, required=True),
                "why": Key("why", _text, required=True), "warnings": Key("warnings", _texts),
                "queries": Key("queries", _count), "static_blind": Key("static_blind", _flag)},
})


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise CaseError(f"{path}: not valid TOML: {err}") from None


def _problems(data: Mapping[str, Any], kind: Kind) -> list[str]:
    known = FORMATS[kind]
    problems = []
    for key in sorted(set(data) - set(known)):
        close = difflib.get_close_matches(key, known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        problems.append(f"unknown key {key!r}{hint}; a {kind} case knows {sorted(known)}")
    problems += [f"missing key {key!r}" for key, spec in known.items()
                 if spec.required and key not in data]
    for key, value in data.items():
        wrong = known[key].check(value) if key in known else None
        if wrong:
            problems.append(f"{key} {wrong}")
    if "error" in data and data.get("spark") != "restart-fails":
        problems.append("error only goes with spark = 'restart-fails'")
    overlap = sorted(set(data.get("codes", [])) & set(data.get("absent", [])))
    if overlap:
        problems.append(f"codes {overlap} are also in absent")
    return problems


def _value(key: str, value: Any) -> Any:
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, dict):
        return MappingProxyType(dict(value))
    return value.strip() if key == "why" else value


def load_case(folder: Path, kind: Kind) -> Case:
    """The case in `folder`, checked against its kind's format (CaseError if it does not fit)."""
    if kind not in FORMATS:
        raise ValueError(f"unknown kind of case {kind!r}: one of {KINDS}")
    path = folder / "case.toml"
    data = _read(path)
    problems = _problems(data, kind)
    problems += [f"{job} is missing next to it" for job in ("old.py", "new.py")
                 if not (folder / job).is_file()]
    if problems:
        raise CaseError(f"{path}: " + "; ".join(problems))
    values = {FORMATS[kind][key].attr: _value(key, value) for key, value in data.items()}
    if kind == "spark":
        values.setdefault("inputs", DEFAULT_INPUTS)
    return Case(name=folder.name, root=folder, kind=kind, **values)


def load_cases(root: Path, kind: Kind) -> list[Case]:
    """Every case under `root` (each folder with a case.toml), by name."""
    return [load_case(d, kind) for d in sorted(root.iterdir()) if (d / "case.toml").is_file()]
