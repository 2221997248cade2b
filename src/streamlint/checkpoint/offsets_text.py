"""`checkpoint offsets` for people: the choice explained, the JSON, the snippet."""

from __future__ import annotations


def render_offsets_text(data: dict) -> str:
    out = [f"checkpoint: {data['path']}", f"offsets of batch {data['batch']}:"]
    out += [f"  {note}" for note in data["notes"]]
    out.append("")
    for source in data["sources"]:
        label = source["name"] or f"source {source['index']}"
        out.append(f"{label} ({source['kind']}): {source['offset']}")
        if source["option"]:
            out.append(f"  {source['option']}: {source['value']}")
        if source["note"]:
            out.append(f"  note: {source['note']}")
    out.append("")
    out.append("PySpark:")
    out += ["  " + line if line else "" for line in data["snippet"].splitlines()]
    return "\n".join(out) + "\n"
