"""Credentials: the values of options that carry one are never kept, shown or printed.

A password in `kafka.sasl.jaas.config`, an Event Hubs connection string, a storage account key
is replaced where the job is read by a `Secret`: a digest that tells whether two versions set
the same value, and that renders as a placeholder in every report. Source lines shown under a
finding, findings' messages and values (code shown as written) and the `next:` patch go
through `mask_line`, which hides the strings that follow a credential's key and the values of
`password=`-like assignments.
"""

from __future__ import annotations

import re

from streamlint.model.records import record

# Parts of an option's or setting's key that say its value is a credential. The key is
# compared lowercased with its separators (`.`, `_`, `-`) removed: `fs.azure.account.key.x`
# reads `fsazureaccountkeyx`, `spark.hadoop.fs.s3a.secret.key` holds `secret`.
_WORDS = ("password", "passwd", "secret", "token", "credential", "jaas", "connectionstring",
          "apikey", "accesskey", "accountkey", "privatekey", "sharedaccesskey", "sastoken",
          "saskey")
# Shared access signatures: `sas` as a part of its own (`fs.azure.sas.<container>`).
_SAS = re.compile(r"(^|[._-])sas([._-]|$)")
_SEPARATORS = re.compile(r"[._-]")

PLACEHOLDER = "<a credential, not shown>"


def is_credential(key: object) -> bool:
    """True when an option or setting named `key` carries a credential."""
    if not isinstance(key, str):
        return False
    lowered = key.lower()
    squeezed = _SEPARATORS.sub("", lowered)
    return any(word in squeezed for word in _WORDS) or bool(
        _SAS.search(lowered))


@record
class Secret:
    """A credential's value as a digest: equal when the values are, shown as a placeholder.

    The digest is never rendered (`str` is the placeholder), so neither a report nor a log
    can carry it; it exists only so that a rotated password reads as a change."""

    digest: str

    def __str__(self) -> str:
        return PLACEHOLDER


def secret(value: object) -> Secret:
    """The digest of a value as the job wrote it (a string, or code known only at run time)."""
    import hashlib  # lazily: it loads OpenSSL, 2.5 ms of a run with no credential

    text = value if isinstance(value, str) else f"{type(value).__name__}:{value!r}"
    return Secret(hashlib.blake2b(text.encode("utf-8", "surrogatepass"),
                                  person=b"streamlint-cred").hexdigest())


def masked(key: object, value: object) -> object:
    """The value to keep for an option or setting: a `Secret` for a credential's key."""
    if value is None or isinstance(value, Secret) or not is_credential(key):
        return value
    return secret(value)


def mask_options(options: tuple | list) -> tuple:
    """(key, value) pairs with every credential's value replaced by its `Secret`."""
    return tuple((key, masked(key, value)) for key, value in options)


# -- source lines shown under a finding ----------------------------------------------------

_LITERAL = re.compile(r"""(?P<q>'''|\"\"\"|'|")(?P<body>(?:\\.|(?!(?P=q)).)*)(?P=q)""")
# `password="..."` (a JAAS line), `SharedAccessKey=...;` (a connection string), `sig=...` (a
# SAS token in a URL), wherever they are written.
_ASSIGNED = re.compile(
    r"(?i)\b(password|passwd|secret|token|sharedaccesskey|accountkey|apikey|api_key|sig|"
    r"access_key|secret_key)(\s*[=:]\s*)(\\?\"[^\"]*\"|\\?'[^']*'|[^\s;'\",)&]+)")
HIDDEN = "***"


def mask_line(line: str) -> str:
    """A line of code safe to print: the strings after a credential's key (`.option(
    "kafka.sasl.jaas.config", "...")`, `{"eventhubs.connectionString": ...}`) and the values
    of `password=`-like assignments inside any text are replaced by `***`."""
    out: list[str] = []
    hiding = False
    position = 0
    for match in _LITERAL.finditer(line):
        out.append(line[position:match.start()])
        quote, body = match["q"], match["body"]
        if hiding:
            out.append(f"{quote}{HIDDEN}{quote}")
        else:
            out.append(f"{quote}{_ASSIGNED.sub(_hide, body)}{quote}")
            hiding = is_credential(body) and len(body) < 200
        position = match.end()
    out.append(line[position:])
    rest = "".join(out)
    return _ASSIGNED.sub(_hide, rest)


def _hide(match: re.Match[str]) -> str:
    value = match.group(3)
    quote = value[:2] if value.startswith("\\") else value[:1] if value[:1] in "'\"" else ""
    return f"{match.group(1)}{match.group(2)}{quote}{HIDDEN}{quote}"


def mask_text(text: str) -> str:
    """`mask_line` over every line of a text."""
    return "\n".join(mask_line(line) for line in text.split("\n"))
