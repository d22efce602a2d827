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


def summarize(raw: str, top: int = 25, title: str = "profile") -> str:
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
    out = [
        f"### {title}",
        "",
        f"{total:,} samples of threads py-spy saw as not idle, 100 per second per thread. "
        "Time waiting for the GIL counts; a thread blocked in a C call (a queue or "
        "condition wait) can show as busy in its caller.",
        "",
    ]
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
    args = parser.parse_args(argv)
    print(summarize(args.path.read_text(errors="replace"), args.top, args.path.name))


if __name__ == "__main__":
    main()
