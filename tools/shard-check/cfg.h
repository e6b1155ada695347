/* cfg.h: a ClickHouse server's configuration as its ConfigProcessor builds it (the main file, its
 * merge directories, include_from, incl= and from_env=), read as Poco's getters read values. */
#ifndef SC_CFG_H
#define SC_CFG_H

#include <stddef.h>
#include <stdint.h>

#include "scerr.h"

typedef struct cfg_node cfg_node;

/* Reads path (a file or pipe, "-" for stdin) whole, up to the size a server config can have.
 * 0, or -1 with err set. */
int cfg_read_file(const char *path, char **data, size_t *len, sc_err *err);

int cfg_is_dir(const char *path);

/* Whether data starts (after a UTF-8 byte order mark and blanks) with '<': what the server reads
 * as XML; anything else it takes for YAML. */
int cfg_looks_xml(const char *data, size_t len);

/* The merged tree of the server config at path: FILE plus FILE's stem.d/ and conf.d/, a directory
 * holding config.xml likewise, any other directory as a set of merge files; incl= and from_env=
 * resolved against include_from and this process's environment. main_data: FILE's bytes when the
 * caller has read them already (a pipe can be read once). SC_OK, SC_E_INPUT (err says why),
 * SC_E_REFUSED (the server would refuse to load it: err says why), SC_E_NOMEM. */
int cfg_load(const char *path, const char *main_data, size_t main_len, cfg_node **root, sc_err *err);
void cfg_free(cfg_node *root);

/* The tree, read-only. Child slots may be NULL (elements a merge removed). */
const char *cfg_name(const cfg_node *n);
size_t cfg_n_kids(const cfg_node *n);
const cfg_node *cfg_kid(const cfg_node *n, size_t i);
/* The first child element of that name, or NULL. */
const cfg_node *cfg_child(const cfg_node *n, const char *name);
/* Poco's key for child i of n (XMLConfiguration::keys): the name, with "[k]" for the k-th repeat
 * of that name (twin, twin[1]). */
void cfg_key(const cfg_node *n, size_t i, char *buf, size_t cap);
const cfg_node *cfg_child_by_key(const cfg_node *n, const char *key);
/* 1 when a from_zk= substitution (which only a server with ZooKeeper resolves) is left below n. */
int cfg_unresolved(const cfg_node *n);

/* What reading a value gives: CFG_CIRCULAR and CFG_SYNTAX are where the server's Poco throws
 * (CircularReferenceException, SyntaxException); CFG_SELECTOR a ${key} with a selector this tool
 * does not follow ([@attr]); CFG_TOO_LONG a value longer than the caller's buffer. */
enum { CFG_OK = 0, CFG_TOO_LONG = -1, CFG_CIRCULAR = -2, CFG_SELECTOR = -3, CFG_NOMEM = -4, CFG_SYNTAX = -5 };

/* AbstractConfiguration::getString of element n: its inner text, untrimmed, with every ${key}
 * replaced by the (itself expanded) value of that key of the config, a key it does not hold left
 * as written, more than 10 levels deep CFG_CIRCULAR. The text is cut at cap - 1 bytes. */
int cfg_string(const cfg_node *root, const cfg_node *n, char *buf, size_t cap);
/* getInt / getBool of element n, its text expanded as cfg_string does. getInt's bits are returned
 * as UInt32: the caller's type decides (port: UInt16, weight: UInt32). */
int cfg_int(const cfg_node *root, const cfg_node *n, uint32_t *v);
int cfg_bool(const cfg_node *root, const cfg_node *n, int *v);

/* Every macro of <macros> in the merged config at path, read once, as "NAME=VALUE" with the value
 * as the server's Macros reads it (getString: verbatim, never trimmed). *defs (n strings; NULL
 * when there are none) is malloc'ed, each string too: the caller frees them. SC_OK; SC_E_INPUT or
 * SC_E_REFUSED when path is no server config the server would load; SC_E_NOMEM. */
int cfg_macros(const char *path, char ***defs, size_t *n, sc_err *err);

#endif
