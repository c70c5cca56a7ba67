"""Memory: records, the store protocol and its files backend, ranking, and what each chat request carries."""
