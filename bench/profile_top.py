"""Summaries of py-spy profiles: where a server's time goes, as Markdown.

``bench.ingest --profile`` records the lineage server with
``py-spy record --format raw --threads --nolineno`` during each measured
phase and summarizes the collapsed stacks here: samples per thread, the
functions most often on top of a stack (self time) and most often anywhere in
it (inclusive time).

    python -m bench.profile_top profile.txt [--top 25]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path


def _short(frame: str) -> str:
    """``func (path/to/module.py)`` -> ``func (module.py)``, keeping the package dir."""
    name, sep, where = frame.partition(" (")
    if not sep:
        return frame
    where = where.rstrip(")")
    parts = where.split("/")
    return f"{name} ({'/'.join(parts[-2:])})"


def summarize(
    raw: str, top: int = 25, title: str = "profile", gil_seconds: float | None = None
) -> str:
    """Markdown tables of a raw profile; ``gil_seconds``: recorded with ``--gil`` for that long."""
    threads: Counter[str] = Counter()
    self_time: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        thread = frames[0] if frames and frames[0].startswith(("thread", "process")) else "?"
        frames = [f for f in frames if not f.startswith(("thread", "process"))]
        if not frames:
            continue
        total += count
        threads[thread] += count
        self_time[_short(frames[-1])] += count
        for frame in {_short(f) for f in frames}:
            inclusive[frame] += count
    if total == 0:
        return f"### {title}\n\n(no samples)\n"
    if gil_seconds:
        what = (
            f"{total:,} samples of the thread holding the GIL, 100 per second: the GIL was "
            f"held {total / (gil_seconds * 100):.0%} of the {gil_seconds:g} s. Work done "
            "with the GIL released (SQLite, hashing and compressing large buffers) is not "
            "counted."
        )
    else:
        what = (
            f"{total:,} samples of threads py-spy saw as not idle, 100 per second per thread. "
            "Time waiting for the GIL counts (so C calls that release it, such as SQLite's, "
            "hashing or compression, look bigger), and a thread blocked in a C call (a queue "
            "or condition wait) can show as busy in its caller."
        )
    out = [f"### {title}", "", what, ""]
    out += ["| thread | share |", "|---|---:|"]
    out += [f"| {name} | {n / total:.0%} |" for name, n in threads.most_common(8)]
    out += ["", "| self | share |", "|---|---:|"]
    out += [f"| `{name}` | {n / total:.1%} |" for name, n in self_time.most_common(top)]
    out += ["", "| inclusive | share |", "|---|---:|"]
    out += [f"| `{name}` | {n / total:.1%} |" for name, n in inclusive.most_common(top)]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Summarize a py-spy raw profile")
    parser.add_argument("path", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--gil-seconds", type=float, help="recorded with --gil for this long")
    args = parser.parse_args(argv)
    text = args.path.read_text(errors="replace")
    print(summarize(text, args.top, args.path.name, args.gil_seconds))


if __name__ == "__main__":
    main()
