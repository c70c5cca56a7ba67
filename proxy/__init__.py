"""memproxy: a transparent OpenAI-compatible proxy that gives agents long-term memory."""

__version__ = "0.1.0"  # the distribution's version too: pyproject.toml says the same (static, so the Dockerfile's
# dependency layer builds from pyproject.toml alone)
DISTRIBUTION = "memproxy-gateway"  # the name on the package index ("memproxy" there is another project)
