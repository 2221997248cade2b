"""Run streamlint commands in this (fresh) process under a Python audit hook; print what the
hook saw as JSON. Used by tests/test_static_proofs.py: `python audited_run.py SPEC.json`.

SPEC: {"runs": [[cwd, argv], ...], "user_paths": [folders holding user code],
       "allowed_programs": ["git"], "cache": the cache folder streamlint may write,
       "fork": whether streamlint may fork its own workers (`check`'s pool), "log": a file}

Forked workers keep the hook (fork copies the interpreter); what they see is appended to the
log file through a descriptor opened before the runs, and read back at the end.

Recorded, as `[event, detail]`: files opened for writing and every other filesystem change
(outside the cache), sockets, processes started (other than the allowed programs), imports
of pyspark or py4j, code executed that was compiled from a user file, user source compiled
by anything but `ast.parse` (which only parses), and modules loaded from user folders.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
CHANGES = {"os.mkdir", "os.rename", "os.remove", "os.rmdir", "os.chmod", "os.chown",
           "os.link", "os.symlink", "os.truncate", "os.utime", "os.chflags", "os.lchflags",
           "shutil.rmtree", "shutil.copyfile", "shutil.copymode", "shutil.copystat",
           "shutil.move", "shutil.copytree", "os.setxattr", "os.removexattr"}
PROCESSES = {"subprocess.Popen", "os.posix_spawn", "os.spawn", "os.system", "os.fork",
             "os.forkpty", "os.exec", "os.startfile", "pty.spawn"}


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as handle:
        spec = json.load(handle)
    user = tuple(os.path.realpath(p) + os.sep for p in spec["user_paths"])
    cache = os.path.realpath(spec["cache"]) + os.sep
    allowed = set(spec["allowed_programs"])
    ours = {"active": False, "child": False}
    log = os.open(spec["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    class Seen(list):
        def append(self, item: list[str]) -> None:  # type: ignore[override]
            if ours["child"]:  # a forked worker: its list dies with it, the file does not
                os.write(log, (json.dumps(item) + "\n").encode())
            else:
                super().append(item)

    seen = Seen()

    def in_child() -> None:
        ours["child"] = True
        os.write(log, (json.dumps(["worker", str(os.getpid())]) + "\n").encode())

    os.register_at_fork(after_in_child=in_child)

    def in_user(path: object) -> bool:
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, str) or not os.path.exists(path):  # "<string>", "<unknown>"
            return False
        return os.path.realpath(path).startswith(user)

    def outside_cache(path: object) -> bool:
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, str):
            return True  # an fd-relative change: not ours to allow
        return not (os.path.realpath(path) + os.sep).startswith(cache)

    def hook(event: str, args: tuple) -> None:
        if not ours["active"]:
            return
        if event == "open":
            path, mode, flags = (list(args) + [None, None])[:3]
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & WRITE_FLAGS)
            # An int is a descriptor already open (a pipe to git): its opening was seen.
            if writes and not isinstance(path, int) and outside_cache(path):
                seen.append(["write", f"{path} {mode or flags}"])
        elif event == "os.mkdir" and cache.startswith(os.path.realpath(str(args[0])) + os.sep):
            pass  # makedirs of the cache folder's parents
        elif event in CHANGES and outside_cache(args[0] if args else None):
            seen.append(["change", f"{event} {args[:2]}"])
        elif event.startswith("socket."):
            seen.append(["socket", f"{event} {args!r}"[:300]])
        elif event in PROCESSES or event.startswith("os.exec") or event.startswith("os.spawn"):
            program = os.path.basename(str(args[0])) if args else ""
            if event == "os.fork" and spec["fork"]:
                return
            if program not in allowed:
                seen.append(["process", f"{event} {args!r}"[:300]])
        elif event == "import":
            name = str(args[0])
            if name.split(".")[0] in ("pyspark", "py4j"):
                seen.append(["import", name])
        elif event == "exec":
            code = args[0] if args else None
            if in_user(getattr(code, "co_filename", None)):
                seen.append(["exec", code.co_filename])
        elif event == "compile":
            source, filename = (list(args) + [None, None])[:2]
            if in_user(filename):
                caller = sys._getframe(1).f_code
                if not (caller.co_name == "parse" and caller.co_filename.endswith("ast.py")):
                    seen.append(["compile", f"{filename} by {caller.co_name}"])

    sys.addaudithook(hook)
    from streamlint.cli import main as streamlint

    codes = []
    for cwd, argv in spec["runs"]:
        os.chdir(cwd)
        out, err = io.StringIO(), io.StringIO()
        ours["active"] = True
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                codes.append(streamlint(argv))
        finally:
            ours["active"] = False
        if "Traceback" in err.getvalue():
            seen.append(["traceback", err.getvalue()[-500:]])
    with open(spec["log"], encoding="utf-8") as handle:
        logged = [json.loads(line) for line in handle if line.strip()]
    workers = sum(1 for kind, _ in logged if kind == "worker")
    seen.extend(item for item in logged if item[0] != "worker")
    loaded = [name for name, module in list(sys.modules.items())
              if in_user(getattr(module, "__file__", None))
              or name.split(".")[0] in ("pyspark", "py4j")]
    seen.extend(["module", name] for name in loaded)
    sys.stdout.write(json.dumps({"codes": codes, "seen": seen, "workers": workers}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
