// The database's schema, one version after another: a start applies those the database lacks, in
// order, each in its own transaction. A released version is never edited; a change is a new one.
export interface Migration {
  readonly version: number
  readonly name: string
  readonly sql: string
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'namespaces, pets, requests and snapshots',
    sql: `
      -- One row per namespace: what replicas share besides its pets and requests (faults with their
      -- counters, clock, coverage counts, the data its pets start from), as the document 'state'.
      -- 'version' grows with every change; 'incarnation' is new each time the name is made again.
      CREATE TABLE namespaces (
        name text PRIMARY KEY,
        incarnation bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        version bigint NOT NULL DEFAULT 0,
        state jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      -- A namespace's own pets: those added or replaced, on top of the shared ones of its source.
      CREATE TABLE pets (
        namespace text NOT NULL REFERENCES namespaces (name) ON DELETE CASCADE,
        id bigint NOT NULL,
        pet jsonb NOT NULL,
        PRIMARY KEY (namespace, id)
      );
      -- The request journal (the control API's requests), the latest JOURNAL_SIZE per namespace.
      CREATE TABLE requests (
        namespace text NOT NULL REFERENCES namespaces (name) ON DELETE CASCADE,
        id bigint NOT NULL,
        record jsonb NOT NULL,
        PRIMARY KEY (namespace, id)
      );
      CREATE TABLE snapshots (
        name text PRIMARY KEY,
        namespace text NOT NULL,
        pets jsonb NOT NULL,
        clock text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 2,
    name: 'the Idempotency-Key of each create',
    sql: `
      -- The key a create sent, with its request's hash and time, on the pet it made: written in the
      -- create's transaction, gone with the pet (a reset, a replace, the namespace's deletion).
      ALTER TABLE pets ADD COLUMN idempotency_key jsonb;
    `,
  },
  {
    version: 3,
    name: 'leases of namespaces, the fence of their owners, and the entries handed to them',
    sql: `
      -- Which replica serves a namespace (src/shared/leases.ts). A row is never deleted: its epoch
      -- only grows, so an owner that lost its lease can never find its epoch current again.
      CREATE TABLE leases (
        name text PRIMARY KEY,
        owner text NOT NULL,
        address text NOT NULL,
        epoch bigint NOT NULL,
        expires timestamptz NOT NULL
      );
      -- In each write transaction of an owner: fails unless its lease's epoch is still the one it
      -- holds, and keeps the lease row (FOR SHARE) until the transaction ends, so that a taking of
      -- the lease waits for the commit and then reads everything it wrote.
      CREATE FUNCTION fence(lease_name text, lease_owner text, lease_epoch bigint) RETURNS void
      LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM leases WHERE name = lease_name AND owner = lease_owner AND epoch = lease_epoch FOR SHARE;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'the lease of namespace % moved to another replica', lease_name USING ERRCODE = 'SB001';
        END IF;
      END
      $$;
      -- Entries of requests another replica answered (503s while the database was away, or as the
      -- lease moved), handed to the namespace's owner: it takes them into its journal at its next
      -- request there, in that request's transaction.
      CREATE TABLE handed_entries (
        namespace text NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        record jsonb NOT NULL,
        PRIMARY KEY (namespace, id)
      );
    `,
  },
  {
    version: 4,
    name: 'the owner of each namespace, for the quota of namespaces per key',
    sql: `
      -- The hash of the API key whose request made the namespace (NAMESPACES_PER_KEY), never the
      -- key; null for the default namespace, those the control API made, and those made while no
      -- quota was set. A key's namespaces are counted by it, under the key's advisory lock.
      ALTER TABLE namespaces ADD COLUMN owner text;
      CREATE INDEX namespaces_owner ON namespaces (owner) WHERE owner IS NOT NULL;
    `,
  },
  {
    version: 5,
    name: 'the entries handed to a namespace go with it',
    sql: `
      -- A deleted or expired namespace leaves no handed entry behind, for nobody would take it, or
      -- a namespace made again under its name would journal the old one's calls.
      DELETE FROM handed_entries h WHERE NOT EXISTS (SELECT 1 FROM namespaces n WHERE n.name = h.namespace);
      ALTER TABLE handed_entries ADD FOREIGN KEY (namespace) REFERENCES namespaces (name) ON DELETE CASCADE;
    `,
  },
  {
    version: 6,
    name: 'when each namespace was last deleted',
    sql: `
      -- By the database's clock, whoever deletes it (a control call, the expiry): a replica that
      -- kept the entries of requests it answered while it could not reach the database writes none
      -- answered before, into the namespace made again, nor into one it would make for them.
      CREATE TABLE deleted_namespaces (
        name text PRIMARY KEY,
        deleted_at timestamptz NOT NULL
      );
      CREATE FUNCTION remember_deletion() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO deleted_namespaces (name, deleted_at) VALUES (OLD.name, clock_timestamp())
          ON CONFLICT (name) DO UPDATE SET deleted_at = excluded.deleted_at;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER namespace_deleted AFTER DELETE ON namespaces
        FOR EACH ROW EXECUTE FUNCTION remember_deletion();
    `,
  },
]
