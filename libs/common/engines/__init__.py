"""The AI engines, each called through its vendor's official SDK (openai, anthropic, perplexityai)
with the key, base URL and model of this deployment's settings. An engine answers a `Reply`: the
text, the pages it cited and those it only retrieved, tokens and cost, as the vendor reported them."""
