"""Managing the store rather than one's own memory: keys, users and their counts, forgetting a user, store health.

Below the HTTP layer, so the API (:mod:`proxy.api.admin`), the console and the CLI share one set of rules; each
method takes the caller's :class:`~proxy.memory.caller.Identity` and decides itself what that caller may see or do.
"""
