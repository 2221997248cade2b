"""`checkpoint show` for people: what the checkpoint will make the next run do."""

from __future__ import annotations

from streamlint.checkpoint.show_data import iso_ms


def render_show_text(data: dict) -> str:
    out = _progress(data)
    out.append("")
    out += _sources(data)
    out.append("")
    out.append("pinned configs (the checkpoint's values win over the job's on restart):")
    for key, value in data["conf"].items():
        out.append(f"  {key} = {value}")
    out.append("")
    out.append("stateful operators:" if data["operators"] else "stateful operators: none")
    for op in data["operators"]:
        out += _operator(op)
    for warning in data["warnings"]:
        out.append(f"warning: {warning}")
    return "\n".join(out) + "\n"


def _progress(data: dict) -> list[str]:
    """Which batch the query reached, what it retains and in which log versions."""
    out = [f"checkpoint: {data['path']}", f"query id: {data['query_id'] or '(no metadata file)'}"]
    batch = data["last_committed_batch"]
    if batch is None:
        out.append("last committed batch: none (no batch has finished yet)")
    else:
        planned = (data["last_committed_timestamp"]
                   or f"{data['last_committed_timestamp_ms']} ms, not a date")
        out.append(f"last committed batch: {batch} (planned at {planned})")
        out.append(f"watermark: {_watermark(data['watermark_ms'])} in batch {batch}, "
                   f"{_watermark(data['next_watermark_ms'])} for the next batch")
    retained = data["retained"]
    out.append("retained logs: offsets " + _range(retained["offsets"]) + ", commits "
               + _range(retained["commits"]))
    for pending in data["uncommitted_batches"]:
        out.append(f"uncommitted batch {pending}: offsets/{pending} was written but "
                   f"commits/{pending} never was; a restart on this checkpoint re-runs it "
                   "with exactly those offsets")
    out.append(f"log versions: offsets v{data['offset_log_version']}, commits "
               f"v{data['commit_log_version']}, state checkpoint format "
               f"{data['state_checkpoint_format']}")
    return out


def _sources(data: dict) -> list[str]:
    """The sources with their offsets (committed, then uncommitted), and the named sinks."""
    out = [f"sources (in order, as of batch {data['last_committed_batch']}):"]
    for source in data["sources"]:
        name = f" {source['name']}" if source["name"] else ""
        out.append(f"  [{source['index']}]{name} {source['kind']}: {source['offset']}")
        if source["kind"] == "unreadable":
            out.append("      (not JSON: Spark's own sources cannot restart from this offset)")
    if not data["sources"]:
        out.append("  (none committed)")
    if data["uncommitted_sources"]:
        out.append(f"sources of uncommitted batch {data['uncommitted_batches'][-1]}:")
        for source in data["uncommitted_sources"]:
            out.append(f"  [{source['index']}] {source['kind']}: {source['offset']}")
    if data["sinks"]:
        out.append("named sinks: " + ", ".join(data["sinks"]))
    return out


def _operator(op: dict) -> list[str]:
    """One stateful operator: its partitions, its stores' schemas and state files."""
    inferred = " (inferred: Spark 3.5 writes no operator metadata)" \
        if op["name_from"] == "inferred" else ""
    out = [f"  [{op['id']}] {op['name'] or 'unknown'}{inferred}, {op['partitions']} partitions"]
    for store in op["stores"]:
        if store.get("column_families"):
            out.append(f"      store {store['name']}:")
            for family in store["column_families"]:
                out.append(f"        {family['name']}: key {family['key_schema']}, "
                           f"value {family['value_schema']}")
        else:
            out.append(f"      store {store['name']}: key {store['key_schema'] or '?'}, "
                       f"value {store['value_schema'] or '?'}")
        files = store.get("state_files")
        if files and files["committed_version"] is not None:
            kinds = ", ".join(files["committed_version_kinds_partition_0"]) or "none"
            out.append(f"        state version {files['committed_version']} (last "
                       f"committed batch): {kinds} in partition 0; "
                       f"{files['partitions_checked']} partition(s) checked, "
                       f"{len(files['partitions_missing_committed_version'])} missing it")
    return out


def _watermark(ms: int | None) -> str:
    if ms is None:
        return "unknown"
    if ms == 0:
        return "none yet"
    moment = iso_ms(ms)
    return f"{moment} ({ms} ms)" if moment else f"{ms} ms (not a date)"


def _range(ids: list[int] | None) -> str:
    if not ids:
        return "none"
    return f"{ids[0]}-{ids[1]}" if ids[0] != ids[1] else str(ids[0])
