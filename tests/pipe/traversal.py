"""Ways of writing a path that leaves an upstream's base path, as a client can send them on the wire.

Each one, decoded by some server on the way (once, twice, with backslashes read as slashes, full-width or overlong
dots folded, Tomcat's ``;`` parameters dropped), is a dot segment. The unit tests, the end-to-end test and
``bench/redteam_tenancy.py`` all try these.
"""

from __future__ import annotations

ESCAPES: tuple[str, ...] = (
    "/v1/../admin/keys",
    "/v1/./../admin/keys",
    "/v1//../admin/keys",
    "/../admin/keys",
    "/v1/%2e%2e/admin/keys",
    "/v1/%2E%2E/admin/keys",
    "/v1/.%2e/admin/keys",
    "/v1/%2e./admin/keys",
    "/v1/%2e/%2e%2e/admin/keys",
    "/%2e%2e/admin/keys",
    "/v1/files/%2e%2e",
    "/v1/%2e%2e",
    "/v1/%252e%252e/%252e%252e/admin/keys",
    "/v1/%252E%252E/admin/keys",
    "/v1/%25%32%65%25%32%65/admin/keys",
    "/v1/%25252e%25252e/admin/keys",
    "/v1/%252e%252e%252fadmin",
    "/v1/..%252fadmin/keys",
    "/v1/..%2fadmin/keys",
    "/v1/..%2Fadmin/keys",
    "/v1/%2e%2e%2fadmin/keys",
    "/v1/..%5cadmin/keys",
    "/v1/..%5Cadmin/keys",
    "/v1/..\\admin/keys",
    "/v1/%2e%2e%5cadmin",
    "/v1/%c0%ae%c0%ae/admin/keys",
    "/v1/%e0%80%ae%e0%80%ae/admin/keys",
    "/v1/%c0%af..%c0%afadmin",
    "/v1/%c1%9c..%c1%9cadmin",
    "/v1/%u002e%u002e/admin/keys",
    "/v1/%ef%bc%8e%ef%bc%8e/admin/keys",
    "/v1/%e2%80%a5/admin/keys",
    "/v1/..%ef%bc%8fadmin/keys",
    "/v1/..%ef%bc%bcadmin/keys",
    "/v1/..;/admin/keys",
    "/v1/..;x=1/admin/keys",
    "/v1/%2e%2e;/admin/keys",
    "/v1/..%00/admin",
    "/v1/%2e%2e%00/admin",
    "/v1/..%09/admin",
    "/v1/%2e%2e%",
    "/v1/%%32%65%%32%65/admin/keys",
)

# Paths a client really uses, some with escapes a server must get as they came.
ORDINARY: tuple[str, ...] = (
    "/v1/models",
    "/models",
    "/v1/files/file-abc123/content",
    "/v1/models/ft:gpt-4o-mini:org:custom:id",
    "/v1/models/meta-llama%2FLlama-3-8B",
    "/v1/vector_stores/vs_1/files/file-2",
    "/v1/files/report.v2.json",
)
