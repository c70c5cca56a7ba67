"""The parts of ``bench/overhead.py``, one concern a module, so one case or check reads on its own.

``python bench/overhead.py`` puts bench/ first on sys.path, so the script imports this package as ``loadtest``.

- ``cases``: what is sent (request body, questions) and the cases it is sent in
- ``servers``, ``targets``: the child processes, and the targets they make up (direct, forwarder, memproxy, LiteLLM)
- ``connection``, ``load``: the HTTP client and the load generator, with its statistics
- ``probes``: one checked request per target and case before anything is measured
- ``extraction_load``: the driver that makes memproxy extract episodes while requests are measured
- ``rounds``: warm-up, first extraction, idle CPU and the interleaved rounds
- ``checks``: the targets each number must meet, and what makes the run fail
- ``report``: the tables on stdout and the JSON results document
"""
