"""Answers written to test the analysis, with what it must find: the mentions in order (brand key
and the text as written), each brand's position and list rank, the citations, and where the text
writes each cited URL.

The tracked brands of every case: the product's own brand (key "brand") and four competitors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from services.analytics.analysis.mentions import Tracked

TRACKED = (
    Tracked("brand", "brand", "Acme", ("Acme Cloud", "ACME Corp")),
    Tracked("notion", "competitor", "Notion"),
    Tracked("globex", "competitor", "Globex", ("Globex Corporation",)),
    Tracked("muller", "competitor", "Müller Analytics", ("Mueller Analytics",)),
    Tracked("zoe", "competitor", "Zoë"),
)
DOMAINS = {"brand": ["acme.com", "acme.io"], "notion": ["notion.so"], "globex": ["globex.com"], "muller": ["müller.de"]}


@dataclass(frozen=True)
class Case:
    name: str
    text: str
    mentions: list[tuple[str, str]]
    # key -> (position, list rank)
    brands: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    # (normalised url, registrable domain, cited, classification)
    citations: list[tuple[str, str, bool, str]] = field(default_factory=list)
    cited: list[str] = field(default_factory=list)
    retrieved: list[str] = field(default_factory=list)
    # normalised url -> its [start, end) offsets in the text; a citation not listed has none
    spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


CASES = [
    Case("plain sentence", "Acme is a solid choice.", [("brand", "Acme")], {"brand": (1, None)}),
    Case("no brand at all", "There are many tools for this job.", []),
    Case("lower case", "many teams use acme for this.", [("brand", "acme")], {"brand": (1, None)}),
    Case("upper case", "ACME IS FAST.", [("brand", "ACME")], {"brand": (1, None)}),
    Case("inside another word", "Acmeology and preacme are not brands.", []),
    Case("prefix of a word", "The acmes of design.", []),
    Case("possessive", "Acme's pricing is fair.", [("brand", "Acme")], {"brand": (1, None)}),
    Case("curly possessive", "Notion’s editor is loved.", [("notion", "Notion")], {"notion": (1, None)}),
    Case("alias longest wins", "Acme Cloud scales.", [("brand", "Acme Cloud")], {"brand": (1, None)}),
    Case("alias in capitals", "ACME CORP leads.", [("brand", "ACME CORP")], {"brand": (1, None)}),
    Case(
        "competitor alias",
        "Globex Corporation and Acme.",
        [("globex", "Globex Corporation"), ("brand", "Acme")],
        {"globex": (1, None), "brand": (2, None)},
    ),
    Case(
        "repeated mentions",
        "Acme, then Notion, then Acme again, then Acme.",
        [("brand", "Acme"), ("notion", "Notion"), ("brand", "Acme"), ("brand", "Acme")],
        {"brand": (1, None), "notion": (2, None)},
    ),
    Case(
        "position counts brands first named earlier",
        "Notion and Globex beat Acme.",
        [("notion", "Notion"), ("globex", "Globex"), ("brand", "Acme")],
        {"notion": (1, None), "globex": (2, None), "brand": (3, None)},
    ),
    Case(
        "numbered list",
        "Best tools:\n1. Globex\n2. Acme\n3. Notion",
        [("globex", "Globex"), ("brand", "Acme"), ("notion", "Notion")],
        {"globex": (1, 1), "brand": (2, 2), "notion": (3, 3)},
    ),
    Case(
        "numbered list with parentheses",
        "1) Notion\n2) Acme",
        [("notion", "Notion"), ("brand", "Acme")],
        {"notion": (1, 1), "brand": (2, 2)},
    ),
    Case(
        "bulleted list",
        "Options:\n- Acme\n- Globex\n* Notion",
        [("brand", "Acme"), ("globex", "Globex"), ("notion", "Notion")],
        {"brand": (1, 1), "globex": (1 + 1, 2), "notion": (3, 3)},
    ),
    Case(
        "bold list items",
        "1. **Notion**: notes\n2. **Acme**: clouds",
        [("notion", "Notion"), ("brand", "Acme")],
        {"notion": (1, 1), "brand": (2, 2)},
    ),
    Case(
        "list separated by blank lines",
        "1. Globex\n\n2. Acme\n\n3. Notion",
        [("globex", "Globex"), ("brand", "Acme"), ("notion", "Notion")],
        {"globex": (1, 1), "brand": (2, 2), "notion": (3, 3)},
    ),
    Case(
        "continuation line stays in its item",
        "1. Globex\n   is older than Acme\n2. Notion",
        [("globex", "Globex"), ("brand", "Acme"), ("notion", "Notion")],
        {"globex": (1, 1), "brand": (2, 1), "notion": (3, 2)},
    ),
    Case(
        "two lists restart ranks",
        "Paid:\n1. Notion\n2. Globex\nFree:\n1. Acme",
        [("notion", "Notion"), ("globex", "Globex"), ("brand", "Acme")],
        {"notion": (1, 1), "globex": (2, 2), "brand": (3, 1)},
    ),
    Case(
        "named before the list",
        "Acme is new.\n1. Notion\n2. Acme",
        [("brand", "Acme"), ("notion", "Notion"), ("brand", "Acme")],
        {"brand": (1, 2), "notion": (2, 1)},
    ),
    Case(
        "markdown table rows",
        "| Tool | Price |\n|---|---|\n| Notion | $8 |\n| Acme | $5 |",
        [("notion", "Notion"), ("brand", "Acme")],
        {"notion": (1, 1), "brand": (2, 2)},
    ),
    Case(
        "table with aligned rule",
        "| Tool | Score |\n|:---|---:|\n| Globex | 9 |\n| Acme | 7 |\n| Notion | 6 |",
        [("globex", "Globex"), ("brand", "Acme"), ("notion", "Notion")],
        {"globex": (1, 1), "brand": (2, 2), "notion": (3, 3)},
    ),
    Case("non-ASCII name", "Müller Analytics is precise.", [("muller", "Müller Analytics")], {"muller": (1, None)}),
    Case(
        "non-ASCII transliterated alias",
        "Mueller Analytics is precise.",
        [("muller", "Mueller Analytics")],
        {"muller": (1, None)},
    ),
    Case(
        "decomposed accents",
        "Mu\u0308ller Analytics, then Acme.",
        [("muller", "Mu\u0308ller Analytics"), ("brand", "Acme")],
        {"muller": (1, None), "brand": (2, None)},
    ),
    Case("upper-case non-ASCII", "MÜLLER ANALYTICS wins.", [("muller", "MÜLLER ANALYTICS")], {"muller": (1, None)}),
    Case(
        "short non-ASCII name",
        "Zoë and Acme.",
        [("zoe", "Zoë"), ("brand", "Acme")],
        {"zoe": (1, None), "brand": (2, None)},
    ),
    Case("short name never fuzzy", "Zoe and Zoey are people.", []),
    Case("full-width letters", "Ａｃｍｅ is fast.", [("brand", "Ａｃｍｅ")], {"brand": (1, None)}),
    Case("spaces inside a name", "Acme   Cloud is here.", [("brand", "Acme   Cloud")], {"brand": (1, None)}),
    Case(
        "line break inside a name",
        "Globex\nCorporation ships.",
        [("globex", "Globex\nCorporation")],
        {"globex": (1, None)},
    ),
    Case("near spelling found", "Notoin is a notes app.", [("notion", "Notoin")], {"notion": (1, None)}),
    Case(
        "near spelling of a long name",
        "Mueller Analytcs is precise.",
        [("muller", "Mueller Analytcs")],
        {"muller": (1, None)},
    ),
    Case("a word one letter away is no mention", "The motion was carried.", []),
    Case("lower-case near spelling is no mention", "the notoin of time", []),
    Case("different first letter is no mention", "Potion sellers.", []),
    Case("a swap of two letters is one edit", "Notino is a shop.", [("notion", "Notino")], {"notion": (1, None)}),
    Case("a substituted letter on a short name is no mention", "Nation states.", []),
    Case("a doubled letter is a near spelling", "Nottion works.", [("notion", "Nottion")], {"notion": (1, None)}),
    Case(
        "a substituted letter on a long name is a near spelling",
        "Mueller Amalytics is new.",
        [("muller", "Mueller Amalytics")],
        {"muller": (1, None)},
    ),
    Case(
        "brand in a URL is no mention",
        "See https://acme.com/notion for details.",
        [],
        citations=[("https://acme.com/notion", "acme.com", True, "owned")],
        spans={"https://acme.com/notion": [(4, 27)]},
    ),
    Case(
        "cited and retrieved",
        "Acme leads.",
        [("brand", "Acme")],
        {"brand": (1, None)},
        citations=[
            ("https://docs.acme.io/start", "acme.io", True, "owned"),
            ("https://globex.com/blog", "globex.com", True, "competitor"),
            ("https://news.example.co.uk/a", "example.co.uk", False, "third_party"),
        ],
        cited=["https://docs.acme.io/start?utm_source=openai", "HTTPS://GLOBEX.COM:443/blog/#top"],
        retrieved=["https://news.example.co.uk/a", "https://docs.acme.io/start"],
    ),
    Case(
        "URL in text is a citation",
        "Read it at https://www.notion.so/guide.",
        [],
        citations=[("https://www.notion.so/guide", "notion.so", True, "competitor")],
        spans={"https://www.notion.so/guide": [(11, 38)]},
    ),
    Case(
        "URLs end before the punctuation around them",
        "Prices: https://acme.com/pricing. Plans (https://globex.com/plans), and **https://acme.io/docs/**!",
        [],
        citations=[
            ("https://acme.com/pricing", "acme.com", True, "owned"),
            ("https://globex.com/plans", "globex.com", True, "competitor"),
            ("https://acme.io/docs", "acme.io", True, "owned"),
        ],
        spans={
            "https://acme.com/pricing": [(8, 32)],
            "https://globex.com/plans": [(41, 65)],
            "https://acme.io/docs": [(74, 95)],
        },
    ),
    Case(
        "a URL written twice is one citation with two spans",
        "Start at https://acme.com/start, then https://notion.so/x; back to https://acme.com/start again.",
        [],
        citations=[
            ("https://acme.com/start", "acme.com", True, "owned"),
            ("https://notion.so/x", "notion.so", True, "competitor"),
        ],
        spans={"https://acme.com/start": [(9, 31), (67, 89)], "https://notion.so/x": [(38, 57)]},
    ),
    Case(
        "spellings of one page share its citation, first cited by the engine",
        "Docs: https://acme.com/docs?utm_source=chatgpt&page=2 or https://acme.com/docs?page=2#setup",
        [],
        citations=[("https://acme.com/docs?page=2", "acme.com", True, "owned")],
        cited=["https://acme.com/docs?page=2&utm_medium=ai"],
        spans={"https://acme.com/docs?page=2": [(6, 53), (57, 91)]},
    ),
    Case(
        "international domain",
        "Acme.",
        [("brand", "Acme")],
        {"brand": (1, None)},
        citations=[("https://xn--mller-kva.de/x", "xn--mller-kva.de", True, "competitor")],
        cited=["https://MÜLLER.de/x"],
    ),
    Case(
        "query parameters sorted, not a citation twice",
        "",
        [],
        citations=[("https://example.com/p?a=1&b=2", "example.com", True, "third_party")],
        cited=["https://example.com/p?b=2&a=1", "https://example.com/p?a=1&b=2&utm_medium=x"],
    ),
    Case("not a web address", "", [], cited=["mailto:team@acme.com", "ftp://acme.com/file"]),
]
