"""memproxy: a transparent OpenAI-compatible proxy that gives agents long-term memory."""

__version__ = "0.1.0"
