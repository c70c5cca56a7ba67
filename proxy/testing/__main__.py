"""Lets ``python -m proxy.testing --host H --port P [--memory-hop] [--extraction]`` start the fake upstream."""

from .cli import main

if __name__ == "__main__":
    main()
