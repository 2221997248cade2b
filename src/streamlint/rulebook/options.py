"""What a source option is, read from `rules/options.toml`: its class, and the page that says so;
and which sink options no verdict depends on the value of.

The extractor sorts a source's options by class (what is read, rate limits, the rest) and the
diff hands a changed option's class to the rules (`source.option`'s `option_class` fact), so
knowing one more option is one line of data, never code.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from functools import cache

from streamlint.model import Unknown
from streamlint.model.records import record
from streamlint.model.secrets import is_credential
from streamlint.rulebook.book import rule_data
from streamlint.rulebook.change import OPTION_CLASSES

ANY = "any"  # the kind whose classes hold for every format


@record
class OptionClass:
    """One class of options of one kind of source, with the page it comes from."""

    kind: str
    name: str
    docs: str
    exact: frozenset[str]
    patterns: tuple[str, ...]


@record
class Knowledge:
    kinds: dict[str, tuple[OptionClass, ...]]  # kind -> its classes
    formats: dict[str, str]  # a source format (lowercased) -> its kind
    # kind -> the class of the keys it reads by no name of its own: those without the prefix
    # its client's settings carry (Kafka's `kafka.`), which nothing reads.
    ignored: dict[str, tuple[str, OptionClass]]


@cache
def knowledge() -> Knowledge:
    data = rule_data("options")
    kinds: dict[str, tuple[OptionClass, ...]] = {}
    formats: dict[str, str] = {}
    ignored: dict[str, tuple[str, OptionClass]] = {}
    for source in data.get("source", []):
        kind = source["kind"]
        classes = []
        for entry in source.get("class", []):
            name = entry["class"]
            if name not in OPTION_CLASSES:
                raise ValueError(f"rules/options.toml: {kind}: unknown class {name!r} "
                                 f"(classes: {', '.join(sorted(OPTION_CLASSES))})")
            if not entry.get("docs"):
                raise ValueError(f"rules/options.toml: {kind}: class {name} cites no page")
            keys = {key.lower() for key in entry["options"]}
            classes.append(OptionClass(kind, name, entry["docs"],
                                       frozenset(k for k in keys if "*" not in k),
                                       tuple(sorted(k for k in keys if "*" in k))))
        kinds[kind] = tuple(classes)
        for fmt in source.get("formats", []):
            formats[fmt.lower()] = kind
        if source.get("consumer_prefix"):
            ignored[kind] = (source["consumer_prefix"].lower(), OptionClass(
                kind, "ignored", source["ignored_docs"], frozenset(), ()))
    return Knowledge(kinds, formats, ignored)


def source_kind(fmt: object) -> str:
    """The kind of source a format is (kafka, autoloader, delta, file, ...); `any` if none."""
    return knowledge().formats.get(str(fmt).lower(), ANY) if isinstance(fmt, str) else ANY


def classify(fmt: object, key: str) -> OptionClass | None:
    """The class of option `key` of a source of format `fmt`: the format's kind first, then
    the classes every format shares; a credential's key is one wherever it is; None when
    streamlint does not know the option."""
    lowered = key.lower()
    for kind in dict.fromkeys((source_kind(fmt), ANY)):
        for entry in knowledge().kinds.get(kind, ()):
            if lowered in entry.exact:
                return entry
        for entry in knowledge().kinds.get(kind, ()):
            if any(fnmatchcase(lowered, pattern) for pattern in entry.patterns):
                return entry
    if is_credential(key):
        return OptionClass(ANY, "security-credential", "", frozenset(), ())
    prefix, ignored = knowledge().ignored.get(source_kind(fmt), ("", None))
    if ignored is not None and not lowered.startswith(prefix):
        return ignored  # neither one of the source's own options nor its client's
    return None


def option_class(fmt: object, key: str) -> str:
    """The class's name, "unknown" for an option streamlint does not know."""
    found = classify(fmt, key)
    return found.name if found is not None else "unknown"


@cache
def _sink_value_free() -> frozenset[str]:
    found: set[str] = set()
    for entry in rule_data("options").get("sink_value_free", []):
        if not entry.get("docs"):
            raise ValueError(f"rules/options.toml: sink_value_free {entry.get('what')!r} "
                             f"cites no page")
        found |= {key.lower() for key in entry["options"]}
    return frozenset(found)


def sink_value_free(key: str, value: object = None) -> bool:
    """Whether no rule's verdict depends on the value of sink option `key`
    (rules/options.toml `sink_value_free`). A dict of options known only at run time
    (`.options(**opts)`) is, where every key the code lets it hold is (`Unknown.keys`)."""
    if key.startswith("**"):
        keys = getattr(value, "keys", None) if isinstance(value, Unknown) else None
        return keys is not None and all(k.lower() in _sink_value_free() for k in keys)
    return key.lower() in _sink_value_free()
