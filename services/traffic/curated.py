"""What the maintained user-agent list does not say about the AI agents it names: who runs each,
what it fetches for (the category), its robots.txt token, and how its operator lets a site check
it is genuine. Written from each operator's own crawler documentation (the `docs` address of
each entry); the refresh command (services/traffic/refresh.py) joins it with the package's
patterns. An agent of the package tagged as an AI crawler without an entry here is kept, as
category `other`, its operator the host of its documentation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CATEGORIES = ("training", "search", "user_fetch", "agent", "dataset", "other")


@dataclass(frozen=True)
class Curated:
    id: str
    name: str
    operator: str
    category: str
    robots_token: str | None
    # A regular expression of crawler-user-agents this entry describes (its `pattern`, as written there).
    package_pattern: str | None
    docs: str
    # Patterns of our own, for agents the package does not list yet.
    patterns: tuple[str, ...] = ()
    # Where the operator publishes its addresses (JSON with `prefixes: [{ipv4Prefix|ipv6Prefix}]`),
    # and whether that list is complete: a claim from outside a complete list is spoofed.
    ip_ranges_url: str | None = None
    # Host name suffixes of forward-confirmed reverse DNS the operator documents.
    rdns_suffixes: tuple[str, ...] = ()
    # Web Bot Auth: the Signature-Agent origins whose key directory signs for this agent.
    signature_agents: tuple[str, ...] = ()
    aliases: tuple[str, ...] = field(default=())


OPENAI_BOTS = "https://platform.openai.com/docs/bots"
ANTHROPIC_BOTS = "https://support.anthropic.com/en/articles/8896518"
PERPLEXITY_BOTS = "https://docs.perplexity.ai/guides/bots"
GOOGLE_CRAWLERS = "https://developers.google.com/search/docs/crawling-indexing/google-common-crawlers"
META_CRAWLERS = "https://developers.facebook.com/docs/sharing/webmasters/web-crawlers"

AGENTS: tuple[Curated, ...] = (
    Curated(
        "gptbot",
        "GPTBot",
        "OpenAI",
        "training",
        "GPTBot",
        "GPTBot",
        OPENAI_BOTS,
        ip_ranges_url="https://openai.com/gptbot.json",
    ),
    Curated(
        "oai-searchbot",
        "OAI-SearchBot",
        "OpenAI",
        "search",
        "OAI-SearchBot",
        "OAI-SearchBot",
        OPENAI_BOTS,
        ip_ranges_url="https://openai.com/searchbot.json",
    ),
    Curated(
        "chatgpt-user",
        "ChatGPT-User",
        "OpenAI",
        "user_fetch",
        "ChatGPT-User",
        "ChatGPT-User",
        OPENAI_BOTS,
        ip_ranges_url="https://openai.com/chatgpt-user.json",
        signature_agents=("https://chatgpt.com",),
    ),
    Curated(
        "chatgpt-agent",
        "ChatGPT agent",
        "OpenAI",
        "agent",
        None,
        None,
        OPENAI_BOTS,
        patterns=("ChatGPT-Agent",),
        signature_agents=("https://chatgpt.com",),
    ),
    Curated(
        "claudebot", "ClaudeBot", "Anthropic", "training", "ClaudeBot", None, ANTHROPIC_BOTS, patterns=("ClaudeBot",)
    ),
    Curated("claude-user", "Claude-User", "Anthropic", "user_fetch", "Claude-User", "Claude-User", ANTHROPIC_BOTS),
    Curated(
        "claude-searchbot",
        "Claude-SearchBot",
        "Anthropic",
        "search",
        "Claude-SearchBot",
        "Claude-SearchBot",
        ANTHROPIC_BOTS,
    ),
    Curated("anthropic-ai", "anthropic-ai", "Anthropic", "training", "anthropic-ai", "anthropic-ai", ANTHROPIC_BOTS),
    Curated("claude-web", "Claude-Web", "Anthropic", "user_fetch", "Claude-Web", "Claude-Web", ANTHROPIC_BOTS),
    Curated(
        "perplexitybot",
        "PerplexityBot",
        "Perplexity",
        "search",
        "PerplexityBot",
        "PerplexityBot\\/",
        PERPLEXITY_BOTS,
        ip_ranges_url="https://www.perplexity.ai/perplexitybot.json",
    ),
    Curated(
        "perplexity-user",
        "Perplexity-User",
        "Perplexity",
        "user_fetch",
        "Perplexity-User",
        "Perplexity-User",
        PERPLEXITY_BOTS,
        ip_ranges_url="https://www.perplexity.ai/perplexity-user.json",
    ),
    Curated(
        "google-extended",
        "Google-Extended",
        "Google",
        "training",
        "Google-Extended",
        "Google-Extended",
        GOOGLE_CRAWLERS,
    ),
    Curated(
        "gemini-deep-research",
        "Gemini Deep Research",
        "Google",
        "agent",
        None,
        "Gemini-Deep-Research",
        GOOGLE_CRAWLERS,
        rdns_suffixes=(".google.com", ".googlebot.com", ".googleusercontent.com"),
    ),
    Curated(
        "googlebot",
        "Googlebot",
        "Google",
        "search",
        "Googlebot",
        "Googlebot\\/",
        GOOGLE_CRAWLERS,
        ip_ranges_url="https://developers.google.com/static/search/apis/ipranges/googlebot.json",
        rdns_suffixes=(".googlebot.com", ".google.com", ".googleusercontent.com"),
    ),
    Curated(
        "bingbot",
        "Bingbot",
        "Microsoft",
        "search",
        "bingbot",
        "bingbot",
        "https://www.bing.com/webmasters/help/which-crawlers-does-bing-use-8c184ec0",
        ip_ranges_url="https://www.bing.com/toolbox/bingbot.json",
        rdns_suffixes=(".search.msn.com",),
    ),
    Curated(
        "applebot",
        "Applebot",
        "Apple",
        "search",
        "Applebot",
        "Applebot",
        "https://support.apple.com/en-us/119829",
        ip_ranges_url="https://search.developer.apple.com/applebot.json",
        rdns_suffixes=(".applebot.apple.com",),
    ),
    Curated(
        "amazonbot",
        "Amazonbot",
        "Amazon",
        "search",
        "Amazonbot",
        "Amazonbot",
        "https://developer.amazon.com/amazonbot",
        rdns_suffixes=(".crawl.amazonbot.amazon",),
    ),
    Curated(
        "duckassistbot",
        "DuckAssistBot",
        "DuckDuckGo",
        "user_fetch",
        "DuckAssistBot",
        "DuckAssistBot",
        "https://duckduckgo.com/duckduckgo-help-pages/results/duckassistbot",
    ),
    Curated(
        "meta-externalagent",
        "meta-externalagent",
        "Meta",
        "training",
        "meta-externalagent",
        "meta-externalagent\\/",
        META_CRAWLERS,
    ),
    Curated(
        "meta-externalfetcher",
        "meta-externalfetcher",
        "Meta",
        "user_fetch",
        "meta-externalfetcher",
        "meta-externalfetcher\\/",
        META_CRAWLERS,
    ),
    Curated("facebookbot", "FacebookBot", "Meta", "training", "FacebookBot", "FacebookBot", META_CRAWLERS),
    Curated(
        "ccbot",
        "CCBot",
        "Common Crawl",
        "dataset",
        "CCBot",
        "CCBot",
        "https://commoncrawl.org/ccbot",
        ip_ranges_url="https://index.commoncrawl.org/ccbot.json",
    ),
    Curated(
        "bytespider",
        "Bytespider",
        "ByteDance",
        "training",
        "Bytespider",
        "Bytespider",
        "https://stackoverflow.com/questions/57908900/what-is-the-bytespider-user-agent",
    ),
    Curated("cohere-ai", "cohere-ai", "Cohere", "user_fetch", "cohere-ai", "cohere-ai", "https://cohere.com"),
    Curated(
        "cohere-training-data-crawler",
        "cohere-training-data-crawler",
        "Cohere",
        "training",
        "cohere-training-data-crawler",
        "cohere-training-data-crawler",
        "https://cohere.com",
    ),
    Curated(
        "mistralai-user",
        "MistralAI-User",
        "Mistral AI",
        "user_fetch",
        "MistralAI-User",
        "MistralAI-User",
        "https://docs.mistral.ai/robots",
    ),
    Curated("youbot", "YouBot", "You.com", "search", "YouBot", "YouBot", "https://about.you.com/youbot/"),
    Curated(
        "deepseekbot", "DeepSeekBot", "DeepSeek", "training", "DeepSeekBot", "DeepSeekBot", "http://deepseek.com/bot"
    ),
    Curated("ai2bot", "AI2Bot", "Allen Institute for AI", "dataset", "AI2Bot", "AI2Bot", "https://allenai.org/crawler"),
    Curated("diffbot", "Diffbot", "Diffbot", "dataset", "Diffbot", "Diffbot\\/", "https://www.diffbot.com"),
    Curated("timpibot", "Timpibot", "Timpi", "dataset", "Timpibot", "Timpibot", "https://timpi.io"),
    Curated("webzio", "webzio", "Webz.io", "dataset", "webzio-extended", "webzio", "https://webz.io"),
    Curated("omgili", "omgili", "Webz.io", "dataset", "omgili", "omgili", "https://webz.io"),
    Curated(
        "imagesiftbot",
        "ImagesiftBot",
        "ImageSift",
        "dataset",
        "ImagesiftBot",
        "ImagesiftBot",
        "https://imagesift.com/about",
    ),
    Curated(
        "petalbot",
        "PetalBot",
        "Huawei",
        "search",
        "PetalBot",
        "PetalBot",
        "https://webmaster.petalsearch.com/site/petalbot",
        rdns_suffixes=(".petalsearch.com",),
    ),
    Curated("manus-user", "Manus-User", "Butterfly Effect", "agent", None, "Manus-User", "https://manus.im"),
    Curated(
        "novellum", "Novellum", "Novellum", "training", "Novellum", "Novellum", "https://crawl.corp.novellum.ai/docs"
    ),
    Curated(
        "kangaroo-bot",
        "Kangaroo Bot",
        "Kangaroo LLM",
        "training",
        "Kangaroo Bot",
        "Kangaroo Bot",
        "https://kangaroollm.com.au/kangaroo-bot/",
    ),
)


@dataclass(frozen=True)
class Referrer:
    """An AI answer engine whose readers follow links: a human arriving from one is a referral."""

    platform: str
    name: str
    operator: str
    hosts: tuple[str, ...]


REFERRERS: tuple[Referrer, ...] = (
    Referrer("chatgpt", "ChatGPT", "OpenAI", ("chatgpt.com", "chat.openai.com")),
    Referrer("perplexity", "Perplexity", "Perplexity", ("perplexity.ai", "www.perplexity.ai")),
    Referrer("claude", "Claude", "Anthropic", ("claude.ai",)),
    Referrer("gemini", "Gemini", "Google", ("gemini.google.com",)),
    Referrer("copilot", "Copilot", "Microsoft", ("copilot.microsoft.com",)),
    Referrer("meta-ai", "Meta AI", "Meta", ("meta.ai", "www.meta.ai")),
    Referrer("mistral", "Le Chat", "Mistral AI", ("chat.mistral.ai",)),
    Referrer("deepseek", "DeepSeek", "DeepSeek", ("chat.deepseek.com",)),
    Referrer("you", "You.com", "You.com", ("you.com",)),
)
