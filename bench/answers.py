"""The analysis of an answer, in one process (no HTTP, no database): what finding the brand and ten
competitors (names, aliases, near spellings), positions, list ranks, sentiment and citations costs,
beside a plain case-insensitive regex scan of the same text for the same names.

- per answer: p50 and p99 of the analysis and of the regex scan, and their ratio;
- answers analysed per second on one core.

    python -m bench.answers
"""

from __future__ import annotations

import random
import re
import statistics
import time

from bench.common import load_average, report, say
from services.analytics.analysis.analyse import analyse
from services.analytics.analysis.citations import owners
from services.analytics.analysis.mentions import Tracked

ANSWERS = 2000
COMPETITORS = [f"Rival{index} Analytics" for index in range(10)]
TRACKED = [
    Tracked("brand", "brand", "Acme Cloud", ("Acme", "ACME Corp")),
    *(Tracked(f"c{index}", "competitor", name, (name.split()[0],)) for index, name in enumerate(COMPETITORS)),
]
DOMAINS = {"brand": ["acme.com"], **{f"c{index}": [f"rival{index}.example"] for index in range(10)}}
FILLER = (
    "Teams weigh setup time, pricing and support. Most reviews praise clear dashboards and fair pricing, "
    "while some users find the learning curve steep. "
)


def answer_text(rng: random.Random) -> str:
    """About 1,500 characters: an introduction, a numbered list of five tools, a table and sources."""
    names = rng.sample(["Acme Cloud", *COMPETITORS, "Acmee", "Rival3 Analytcs"], 6)
    lines = ["Here is how the leading tools compare for a startup.", FILLER]
    lines += [f"{index}. **{name}**: {FILLER[: rng.randint(40, 120)]}" for index, name in enumerate(names[:5], 1)]
    lines += ["", "| Tool | Setup |", "|---|---|", *(f"| {name} | {rng.randint(1, 9)} days |" for name in names[3:])]
    lines += [FILLER, f"Sources: https://acme.com/pricing?utm_source=x https://rival{rng.randint(0, 9)}.example/blog"]
    return "\n".join(lines)


def main() -> None:
    rng = random.Random(7)
    texts = [answer_text(rng) for _ in range(ANSWERS)]
    holders = owners(TRACKED, DOMAINS)
    names = sorted({name for brand in TRACKED for name in (brand.name, *brand.aliases)}, key=len, reverse=True)
    scan = re.compile(r"\b(?:" + "|".join(re.escape(name) for name in names) + r")\b", re.IGNORECASE)
    analyse(texts[0], TRACKED, holders)  # the first call loads the sentiment lexicon
    analysis_times, scan_times = [], []
    started = time.perf_counter()
    for text in texts:
        begin = time.perf_counter()
        analyse(text, TRACKED, holders)
        analysis_times.append(time.perf_counter() - begin)
    elapsed = time.perf_counter() - started
    for text in texts:
        begin = time.perf_counter()
        list(scan.finditer(text))
        scan_times.append(time.perf_counter() - begin)

    def quantile(values: list[float], q: int) -> float:
        return statistics.quantiles(values, n=100)[q - 1] * 1000

    analysis_p50, scan_p50 = quantile(analysis_times, 50), quantile(scan_times, 50)
    say(f"{ANSWERS} answers of about {sum(map(len, texts)) // ANSWERS} characters, 11 tracked brands; {load_average()}")
    report(
        "Analysing an answer",
        [
            ("analysis p50 / p99", f"{analysis_p50:.2f} / {quantile(analysis_times, 99):.2f} ms"),
            ("regex scan p50 / p99", f"{scan_p50:.3f} / {quantile(scan_times, 99):.3f} ms"),
            ("ratio of p50s", f"{analysis_p50 / scan_p50:.0f}x"),
            ("answers analysed per second (one core)", f"{ANSWERS / elapsed:.0f}"),
        ],
    )


if __name__ == "__main__":
    main()
