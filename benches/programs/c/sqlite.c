/* SQLite: an in-memory database of 60,000 rows inserted in one
 * transaction through a prepared statement, indexed, grouped, searched
 * with LIKE, queried per group through the index, updated and summed;
 * prints a check value over every result. The VFS is the demo VFS that
 * libsqlite3-sys ships for wasm32-wasi (wasm32-wasi-vfs.c, with
 * SQLITE_OS_OTHER), in both builds; the database and its temporary data
 * stay in memory. */
#include <stdio.h>
#include <stdlib.h>

#include "gen.h"
#include "sqlite3.h"

static sqlite3 *db;
static uint64_t check = FNV_START;

static void fail(const char *what)
{
    fprintf(stderr, "sqlite: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static int on_row(void *unused, int n, char **values, char **names)
{
    (void)unused, (void)names;
    for (int i = 0; i < n; i++)
        if (values[i])
            check = fnv(check, values[i], strlen(values[i]));
    return 0;
}

static void exec(const char *sql)
{
    if (sqlite3_exec(db, sql, on_row, NULL, NULL) != SQLITE_OK)
        fail(sql);
}

int main(void)
{
    sqlite3_stmt *insert, *top;
    char name[64];
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        fail("open");
    exec("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL, grp INTEGER)");
    if (sqlite3_prepare_v2(db, "INSERT INTO t(name, score, grp) VALUES (?, ?, ?)", -1, &insert, NULL) != SQLITE_OK)
        fail("prepare insert");
    lcg_state = 31;
    exec("BEGIN");
    for (int i = 0; i < 60000; i++) {
        int n = snprintf(name, sizeof name, "%s %s %d", gen_word(), gen_word(), (int)(lcg_next() % 1000));
        sqlite3_bind_text(insert, 1, name, n, SQLITE_TRANSIENT);
        sqlite3_bind_double(insert, 2, (double)(lcg_next() % 1000000) / 997.0);
        sqlite3_bind_int(insert, 3, (int)(lcg_next() % 100));
        if (sqlite3_step(insert) != SQLITE_DONE)
            fail("insert");
        sqlite3_reset(insert);
    }
    exec("COMMIT");
    sqlite3_finalize(insert);
    exec("CREATE INDEX t_grp ON t(grp, score)");
    exec("SELECT grp, count(*), printf('%.3f', avg(score)), max(name) FROM t GROUP BY grp ORDER BY grp");
    exec("SELECT count(*) FROM t WHERE name LIKE '%mem%' OR name LIKE '%call 9%'");
    if (sqlite3_prepare_v2(db, "SELECT id, score FROM t WHERE grp = ? ORDER BY score DESC LIMIT 10", -1, &top, NULL) !=
        SQLITE_OK)
        fail("prepare top");
    for (int round = 0; round < 5; round++)
        for (int g = 0; g < 100; g++) {
            sqlite3_bind_int(top, 1, g);
            while (sqlite3_step(top) == SQLITE_ROW) {
                int64_t id = sqlite3_column_int64(top, 0);
                check = fnv(check, &id, sizeof id);
            }
            sqlite3_reset(top);
        }
    sqlite3_finalize(top);
    exec("UPDATE t SET score = score * 1.5 WHERE grp % 7 = 0");
    exec("SELECT printf('%.3f', sum(score)), count(DISTINCT name) FROM t");
    exec("SELECT name FROM t ORDER BY name DESC, id LIMIT 5 OFFSET 1000");
    sqlite3_close(db);
    printf("%llu\n", (unsigned long long)(check >> 1));
    return 0;
}
