"""The PostgreSQL schema, as named migrations applied in order (``schema_migrations`` records which ran).

A migration is never edited once released: a change is a new one at the end. Records are kept in their
JSON line format (``body``, the same as the files backend writes), with the few columns queries need beside
it, so a field added to a record needs no migration and a files store copies over unchanged.

``owner_versions`` holds one counter per (kind, owner): every write bumps it in its transaction (which
also serialises writers of one owner) and stamps the rows it touched with it in ``changed``, so a process
holding an owner's rows as of version ``v`` reads only ``changed > v`` to catch up. ``reset`` is the last
version that removed rows: a reader older than it reads everything again. Rows are never deleted from it.
"""

from __future__ import annotations

MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "0001_memories",
        """
        CREATE TABLE owner_versions (
            kind text NOT NULL,  -- memories | episodes | keys
            owner_key text NOT NULL,  -- JSON [user, workspace]; '' for keys
            version bigint NOT NULL DEFAULT 0,
            reset bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (kind, owner_key)
        );
        CREATE SEQUENCE memory_ids;  -- m-<n>: nextval never hands a number out twice, even across rollbacks
        CREATE TABLE memories (
            id text PRIMARY KEY,
            number bigint NOT NULL,
            owner_key text NOT NULL,
            user_name text,  -- NULL: global
            workspace text,  -- NULL: the user's memories that follow them across workspaces
            created double precision NOT NULL,
            superseded_by text,
            body jsonb NOT NULL,  -- Memory.to_json()
            changed bigint NOT NULL
        );
        CREATE INDEX memories_owner_changed ON memories (owner_key, changed);
        CREATE INDEX memories_user ON memories (user_name, workspace);
        """,
    ),
    (
        "0002_episodes",
        """
        CREATE TABLE episodes (
            owner_key text NOT NULL,
            id text NOT NULL,
            user_name text NOT NULL,
            workspace text NOT NULL,
            session_id text NOT NULL,
            created double precision NOT NULL,
            body jsonb NOT NULL,  -- Episode.to_json()
            changed bigint NOT NULL,
            PRIMARY KEY (owner_key, id)
        );
        CREATE INDEX episodes_user ON episodes (user_name, workspace);
        """,
    ),
    (
        "0003_keys",
        """
        CREATE TABLE api_keys (
            id text PRIMARY KEY,
            user_name text NOT NULL,
            kind text NOT NULL,
            hash text NOT NULL UNIQUE,  -- sha256 of the key: the key itself is never stored
            created double precision NOT NULL,
            revoked double precision
        );
        """,
    ),
    (
        "0004_extraction_jobs",
        """
        CREATE TABLE extraction_jobs (
            id text PRIMARY KEY,
            user_name text NOT NULL,
            workspace text NOT NULL,
            created_at double precision NOT NULL,
            state text NOT NULL,  -- pending | failed
            next_at double precision NOT NULL,
            body jsonb NOT NULL,  -- Job.to_json(): the redacted transcript, never a key
            locked_until timestamptz,  -- a worker's lease; past it, another worker may claim the job
            locked_by text
        );
        CREATE INDEX extraction_jobs_due ON extraction_jobs (state, next_at);
        CREATE INDEX extraction_jobs_user ON extraction_jobs (user_name, workspace);
        """,
    ),
    (
        "0005_session_state",
        """
        CREATE TABLE session_state (
            owner_key text NOT NULL,  -- JSON [user, workspace]
            session text NOT NULL,
            version bigint NOT NULL,  -- bumped by every write: older notifications are ignored
            state jsonb NOT NULL,  -- Recall.export(): the block's text and memories, the notes
            expires_at double precision NOT NULL,  -- idle past it: deleted lazily by later writes
            PRIMARY KEY (owner_key, session)
        );
        CREATE INDEX session_state_expires ON session_state (expires_at);
        CREATE TABLE kept_turns (
            owner_key text NOT NULL,
            session text NOT NULL,
            call_id text NOT NULL,  -- one row per client call id of the mixed turn
            turn jsonb NOT NULL,
            expires_at double precision NOT NULL,
            PRIMARY KEY (owner_key, session, call_id)
        );
        CREATE INDEX kept_turns_expires ON kept_turns (expires_at);
        """,
    ),
    (
        "0008_history",
        """
        CREATE TABLE history (
            owner_key text NOT NULL,  -- JSON [user, workspace]
            key text NOT NULL,  -- HistoryLine.key: a line seen again (a re-sent conversation) is not kept twice
            user_name text NOT NULL,
            workspace text NOT NULL,
            session text NOT NULL,
            ts double precision NOT NULL,
            seq bigserial,  -- arrival order
            body jsonb NOT NULL,  -- HistoryLine.to_json(): already redacted
            PRIMARY KEY (owner_key, key)
        );
        CREATE INDEX history_owner_seq ON history (owner_key, seq);
        CREATE INDEX history_ts ON history (ts);  -- retention
        """,
    ),
    (
        "0009_details",
        """
        CREATE TABLE details (
            owner_key text NOT NULL,  -- JSON [user, workspace]
            id text NOT NULL,  -- r-<16 hex>: content-addressed, so a row never changes once written
            created double precision NOT NULL,
            body jsonb NOT NULL,  -- Detail.to_json(): the redacted tool output, its tool and arguments
            PRIMARY KEY (owner_key, id)
        );
        """,
    ),
    (
        "0010_memory_versions",
        """
        CREATE TABLE memory_versions (
            owner_key text NOT NULL,  -- JSON [user, workspace], as memories
            id text NOT NULL,
            version integer NOT NULL,
            user_name text,  -- NULL: global
            workspace text,
            deleted boolean NOT NULL,  -- a tombstone: the memory was deleted by this version
            at double precision NOT NULL,  -- when this version was made
            body jsonb NOT NULL,  -- Memory.to_json(stored=True) as it was, without its embedding
            PRIMARY KEY (owner_key, id, version)
        );
        CREATE INDEX memory_versions_user ON memory_versions (user_name, workspace);
        """,
    ),
    (
        "0011_held_indexes",
        # What waits for review, counted on every console page (census.held): partial indexes hold only those
        # rows, so the count reads a handful of index entries instead of every body. The predicates are
        # pg_census's HELD_* word for word (the planner uses a partial index for a query that repeats them).
        """
        CREATE INDEX memories_held ON memories (user_name)
            WHERE superseded_by IS NULL AND body @> '{"untrusted": true}' AND NOT body @> '{"user_approved": true}';
        CREATE INDEX episodes_held ON episodes (user_name)
            WHERE body @> '{"provenance": {"untrusted": true}}'
            AND NOT body @> '{"provenance": {"user_approved": true}}';
        """,
    ),
    (
        "0012_console_sessions",
        """
        CREATE TABLE console_sessions (
            id text PRIMARY KEY,  -- sha256 of the console's cookie: the cookie itself is never stored
            key_id text,  -- the memproxy key that signed in (never the key); NULL: open mode
            expires double precision NOT NULL,
            body jsonb NOT NULL  -- ConsoleSession.to_json()
        );
        CREATE INDEX console_sessions_expires ON console_sessions (expires);
        """,
    ),
    (
        "0013_provenance_taint_and_chains",
        """
        CREATE TABLE session_taint (
            owner_key text NOT NULL,  -- JSON [user, workspace]
            session text NOT NULL,
            sources jsonb NOT NULL,  -- the untrusted sources the session took in, sorted: a write adds to them
            expires_at double precision NOT NULL,  -- as long as the conversation can be continued
            PRIMARY KEY (owner_key, session)
        );
        CREATE INDEX session_taint_expires ON session_taint (expires_at);
        CREATE TABLE chain_links (
            owner_key text NOT NULL,
            response_id text NOT NULL,  -- the answer's id as the client got it (its previous_response_id)
            link jsonb NOT NULL,  -- ChainLink.to_json(): the session, the upstream id to chain from, the calls made
            expires_at double precision NOT NULL,
            PRIMARY KEY (owner_key, response_id)
        );
        CREATE INDEX chain_links_expires ON chain_links (expires_at);
        """,
    ),
    (
        "0014_upstream_objects",
        """
        CREATE TABLE upstream_objects (
            id text PRIMARY KEY,  -- the upstream's id (resp_..., file-..., msgbatch_...)
            user_name text NOT NULL,  -- who made it: nobody else reaches it through the shared upstream key
            created double precision NOT NULL  -- bindings expire (upstream.object_ttl_days)
        );
        CREATE INDEX upstream_objects_user ON upstream_objects (user_name, created);
        CREATE INDEX upstream_objects_created ON upstream_objects (created);
        """,
    ),
    (
        "0015_forgotten",
        """
        CREATE TABLE forgotten (
            owner_key text PRIMARY KEY,  -- JSON [user, workspace]
            user_name text NOT NULL,
            workspace text NOT NULL,
            before double precision NOT NULL  -- forget-all: nothing of the owner's said before this is kept
        );
        """,
    ),
)
