"""What goes upstream when a conversation is long: tool outputs offloaded, old turns windowed (pure, no I/O).

Planned once, on the chat-shaped view every dialect gives (:mod:`proxy.dialects.views`); each dialect applies
the :class:`~proxy.context.edits.ContextEdits` to its own format.
"""
