/*
 * Allocations refused on demand, for the unit tests of what the code does
 * when memory runs out (unit-store, unit-nomem): the one after nomem_after
 * more (-1: none), and with nomem_all every one from it on.  nomem_install
 * routes SQLite's through it, its lookaside off so that even its small
 * buffers come from the allocator; a test may route others through
 * nomem_now too.  nomem_refusing, if set, is called at each refusal.
 */
#ifndef NOMEM_H
#define NOMEM_H

#include <sqlite3.h>

static long nomem_after = -1;
static int nomem_all;
static long nomem_refused;
static void (*nomem_refusing)(void);
static sqlite3_mem_methods nomem_sqlite;

/* Whether this allocation is one to refuse. */
static int
nomem_now(void)
{
	if (nomem_after < 0)
		return 0;
	if (nomem_after > 0) {
		nomem_after--;
		return 0;
	}
	nomem_refused++;
	if (!nomem_all)
		nomem_after = -1;
	if (nomem_refusing != NULL)
		nomem_refusing();
	return 1;
}

static void *
nomem_sqlite_malloc(int n)
{
	return nomem_now() ? NULL : nomem_sqlite.xMalloc(n);
}

static void *
nomem_sqlite_realloc(void *p, int n)
{
	return nomem_now() ? NULL : nomem_sqlite.xRealloc(p, n);
}

/* Before SQLite's first use. */
static void
nomem_install(void)
{
	sqlite3_mem_methods m;

	sqlite3_config(SQLITE_CONFIG_GETMALLOC, &nomem_sqlite);
	m = nomem_sqlite;
	m.xMalloc = nomem_sqlite_malloc;
	m.xRealloc = nomem_sqlite_realloc;
	sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
	sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0);
}

#endif /* NOMEM_H */
