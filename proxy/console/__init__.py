"""The memory console at ``/ui/``: people see, review and curate memory in a browser (docs/console.md).

Server-rendered pages (Jinja2, escaped everywhere) over the same services the management API calls, with a small
vendored htmx for updates in place; every page reads and every action works without JavaScript. An edge like
:mod:`proxy.api`: nothing below imports it.
"""
