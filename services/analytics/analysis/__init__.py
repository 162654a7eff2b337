"""The analysis of an AI engine's answer: which tracked brands it names, where and how, and which
pages it cites. Pure functions of the answer and the product's brand set; `analyse` is the entry."""
