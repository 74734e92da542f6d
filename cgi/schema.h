/*
 * The numbered migrations of schema/, embedded at build time by
 * schema/embed.awk: schema_migrations[i] takes a database from
 * user_version i to i + 1.  NULL-terminated.
 */
#ifndef SCHEMA_H
#define SCHEMA_H

extern const char *const schema_migrations[];
/* The PostgreSQL store's series (schema/pg/), the same way. */
extern const char *const schema_pg_migrations[];

#endif /* SCHEMA_H */
