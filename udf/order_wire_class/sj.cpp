// sj: the one C++ file of the project: walks a JSON text with simdjson On-Demand, touching every
// value so nothing goes unvalidated (On-Demand skips lazily), and reports keys/scalars to C.
#include "sj.h"

#include <new>
#include <utility>
#include <simdjson.h>

using namespace simdjson;

static_assert(SJ_PADDING >= SIMDJSON_PADDING, "sj promises simdjson its padding");

struct sj_parser {
    ondemand::parser p;
    dom::parser d; // sj_members: grows to the largest text it is given (at most SJ_KEEP_BYTES)
};

namespace {

struct walker {
    const sj_visitor *v;
    void *ctx;
    const char *base, *end;
    sj_error *err;
};

int syntax(walker &w, const char *msg, const char *at)
{
    if (w.err) {
        w.err->msg = msg;
        w.err->pos = (at && at >= w.base && at <= w.end) ? (size_t)(at - w.base) : 0;
    }
    return SJ_ESYNTAX;
}

int simd_fail(walker &w, error_code e)
{
    return syntax(w, error_message(e), nullptr);
}

int stop(walker &w, const char *at)
{
    syntax(w, "stopped by the visitor", at);
    return SJ_ESTOP;
}

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int walk_value(walker &w, ondemand::value &v, unsigned depth);

// Members of an object whose values are at depth.
int walk_object(walker &w, ondemand::object &o, unsigned depth)
{
    // The field and the element are used where the iterator built them: moving them out of
    // their simdjson_result costs a store-forwarding stall per member (a 16-byte load of words
    // just stored apart), a quarter of the walk's time in a profile.
    for (auto fr : o) {
        error_code e = fr.error();
        if (e)
            return simd_fail(w, e);
        ondemand::field &f = fr.value_unsafe();
        // The key's end is found from its value's start: On-Demand has checked that only
        // whitespace and the colon lie between them, so the key body needs no scan here.
        const char *k = f.key().raw();
        ondemand::value &fv = f.value();
        const char *q = fv.raw_json_token().data() - 1;
        while (q > k && is_ws(*q))
            q--;
        if (q > k && *q == ':')
            q--;
        while (q > k && is_ws(*q))
            q--;
        if (q < k || *q != '"')
            return syntax(w, "malformed key", k);
        if (w.v->key(w.ctx, depth, k, q))
            return stop(w, k);
        int rc = walk_value(w, fv, depth);
        if (rc)
            return rc;
    }
    return SJ_OK;
}

int walk_array(walker &w, ondemand::array &a, unsigned depth)
{
    for (auto er : a) {
        error_code e = er.error();
        if (e)
            return simd_fail(w, e);
        ondemand::value &ev = er.value_unsafe();
        int rc = walk_value(w, ev, depth);
        if (rc)
            return rc;
    }
    return SJ_OK;
}

// A scalar's raw token, whitespace up to the next structural cut off, handed to the visitor.
int scalar(walker &w, std::string_view tok, sj_kind kind, unsigned depth)
{
    const char *p = tok.data(), *q = p + tok.size();
    while (q > p && is_ws(q[-1]))
        q--;
    if (kind == SJ_STRING) {
        // Stage 1 ended the token at the next structural: trimmed, it ends with the close quote.
        if (q - p < 2 || q[-1] != '"')
            return syntax(w, "malformed string", p);
        p++, q--;
    }
    if (w.v->value(w.ctx, depth, kind, p, q))
        return stop(w, p);
    return SJ_OK;
}

// Every scalar is consumed by a getter, never left to the iterator's skipping: simdjson's
// skip_child() takes a string followed by ':' for a key and then skips, unchecked, everything
// up to the next close bracket. A getter moves past exactly one token and checks its form
// again (the visitor has checked every byte of it already). The root's getters also refuse
// anything but whitespace after the scalar.
template <typename T> error_code consume(T &v, sj_kind kind, std::string_view tok)
{
    switch (kind) {
    case SJ_STRING:
        return v.get_raw_json_string().error();
    case SJ_NUMBER: {
        // Integers by the getter of their sign: together they read exactly the engine's range.
        bool is_int = true;
        for (char c : tok) // a plain loop: find_first_of calls memchr once per byte
            is_int &= c != '.' && c != 'e' && c != 'E';
        if (is_int)
            return tok[0] == '-' ? v.get_int64().error() : v.get_uint64().error();
        error_code e = v.get_double().error();
        // Debian's simdjson 3.0.1 refuses exponents of more than 18 digits, which the engine's
        // newer simdjson reads (0e99999999999999999999 is 0). The visitor has accepted this
        // token byte by byte; the iterator's advance past a token that is not a string is
        // exactly one token (skip_child's scalar case), so it moves on from here.
        return e == NUMBER_ERROR ? SUCCESS : e;
    }
    case SJ_TRUE:
    case SJ_FALSE:
        return v.get_bool().error();
    default: {
        bool is_null = false;
        error_code e = v.is_null().get(is_null);
        return e ? e : is_null ? SUCCESS : INCORRECT_TYPE;
    }
    }
}

// A value's token never fails; the root's can (it checks the document is alive).
error_code token_of(ondemand::value &v, std::string_view &tok)
{
    tok = v.raw_json_token();
    return SUCCESS;
}

error_code token_of(ondemand::document &d, std::string_view &tok)
{
    return d.raw_json_token().get(tok);
}

template <typename T> int walk_any(walker &w, T &v, unsigned depth)
{
    // The engine's parser (simdjson DOM, max depth 1024) opens at most 1023 non-empty
    // containers: a value, scalar or empty container, may sit at level 1024 (the root is
    // level 1), never deeper.
    if (depth >= SJ_MAX_LEVEL)
        return syntax(w, "nesting deeper than 1024 levels", nullptr);
    ondemand::json_type t;
    error_code e = v.type().get(t);
    if (e)
        return simd_fail(w, e);
    sj_kind kind;
    switch (t) {
    case ondemand::json_type::object: {
        if (w.v->value(w.ctx, depth, SJ_OBJECT, nullptr, nullptr))
            return stop(w, nullptr);
        ondemand::object o;
        if ((e = v.get_object().get(o)))
            return simd_fail(w, e);
        return walk_object(w, o, depth + 1);
    }
    case ondemand::json_type::array: {
        if (w.v->value(w.ctx, depth, SJ_ARRAY, nullptr, nullptr))
            return stop(w, nullptr);
        ondemand::array a;
        if ((e = v.get_array().get(a)))
            return simd_fail(w, e);
        return walk_array(w, a, depth + 1);
    }
    case ondemand::json_type::string:
        kind = SJ_STRING;
        break;
    case ondemand::json_type::number:
        kind = SJ_NUMBER;
        break;
    case ondemand::json_type::boolean:
        kind = SJ_TRUE; // refined from the token below
        break;
    case ondemand::json_type::null:
        kind = SJ_NULL;
        break;
    default:
        return syntax(w, "unknown value type", nullptr);
    }
    std::string_view tok;
    if ((e = token_of(v, tok)))
        return simd_fail(w, e);
    if (kind == SJ_TRUE && tok[0] == 'f')
        kind = SJ_FALSE;
    // The visitor first: its verdict on the token (and its message) wins over the getter's.
    int rc = scalar(w, tok, kind, depth);
    if (rc)
        return rc;
    if ((e = consume(v, kind, tok)))
        return syntax(w, error_message(e), tok.data());
    return SJ_OK;
}

int walk_value(walker &w, ondemand::value &v, unsigned depth)
{
    return walk_any(w, v, depth);
}

// A parser's new capacity for a text of n bytes: doubled up to SJ_KEEP_BYTES, so a stream of
// ever longer ordinary texts does not reallocate per text; never below n (within simdjson's
// limit) nor 4 KiB.
size_t grown(size_t have, size_t n)
{
    size_t cap = have * 2;
    if (cap > SJ_KEEP_BYTES)
        cap = SJ_KEEP_BYTES;
    if (cap < n)
        cap = n;
    if (cap < 4096)
        cap = 4096;
    return cap > SIMDJSON_MAXSIZE_BYTES ? n : cap;
}

// Walks one text with buffers already big enough.
int walk_text(sj_parser *sp, walker &w, const char *p, size_t n)
{
    ondemand::document doc;
    error_code e = sp->p.iterate(p, n, n + SJ_PADDING).get(doc);
    if (e)
        return e == MEMALLOC ? SJ_ENOMEM : simd_fail(w, e);
    int rc = walk_any(w, doc, 0);
    if (rc)
        return rc;
    const char *at = nullptr;
    e = doc.current_location().get(at);
    if (e != OUT_OF_BOUNDS)
        return syntax(w, "content after the root value", at);
    return SJ_OK;
}

} // namespace

extern "C" sj_parser *sj_new(void)
{
    return new (std::nothrow) sj_parser;
}

extern "C" void sj_free(sj_parser *sp)
{
    delete sp;
}

extern "C" int sj_walk(sj_parser *sp, const char *p, size_t n, const sj_visitor *v, void *ctx,
                       sj_error *err)
{
    walker w{v, ctx, p, p + n, err};
    // The depth limit is ours (SJ_MAX_LEVEL), simdjson's only has to stay out of its way.
    if (sp->p.capacity() < n) {
        if (sp->p.allocate(grown(sp->p.capacity(), n), SJ_MAX_LEVEL + 64))
            return n > SIMDJSON_MAXSIZE_BYTES ? syntax(w, "text larger than 4 GiB", nullptr)
                                              : SJ_ENOMEM;
    }
    int rc = walk_text(sp, w, p, n);
    // A pool process lives for hours: after a huge text (about 6 bytes of index and string
    // space per byte) give the memory back and keep only the steady-state size. A failed
    // shrink leaves the parser empty; the next walk allocates again.
    if (sp->p.capacity() > SJ_KEEP_BYTES) {
        error_code shrunk = sp->p.allocate(SJ_KEEP_BYTES, SJ_MAX_LEVEL + 64);
        (void)shrunk;
    }
    return rc;
}

extern "C" int sj_members(sj_parser *sp, const char *p, size_t n,
                          int (*member)(void *, const char *, size_t, const sj_member *), void *ctx)
{
    // Grown as sj_walk grows its parser; the caller keeps n within SJ_KEEP_BYTES, and with it
    // the tree's memory.
    if (sp->d.capacity() < n) {
        if (sp->d.allocate(grown(sp->d.capacity(), n), SJ_MAX_LEVEL))
            return SJ_ENOMEM;
    }
    dom::element root;
    error_code e = sp->d.parse(p, n, false).get(root);
    if (e)
        return e == MEMALLOC ? SJ_ENOMEM : SJ_ESYNTAX;
    dom::object o;
    if (root.get_object().get(o))
        return SJ_ENOTOBJ;
    for (dom::key_value_pair kv : o) {
        sj_member m{};
        switch (kv.value.type()) {
        case dom::element_type::OBJECT: m.kind = SJ_OBJECT; break;
        case dom::element_type::ARRAY: m.kind = SJ_ARRAY; break;
        case dom::element_type::STRING: {
            std::string_view s = kv.value.get_string().value_unsafe();
            m.kind = SJ_STRING;
            m.s = s.data();
            m.n = s.size();
            break;
        }
        case dom::element_type::INT64:
            m.kind = SJ_NUMBER;
            m.num = SJ_INT;
            m.i = kv.value.get_int64().value_unsafe();
            break;
        case dom::element_type::UINT64:
            m.kind = SJ_NUMBER;
            m.num = SJ_UINT;
            m.u = kv.value.get_uint64().value_unsafe();
            break;
        case dom::element_type::DOUBLE:
            m.kind = SJ_NUMBER;
            m.num = SJ_DOUBLE;
            break;
        case dom::element_type::BOOL:
            m.kind = kv.value.get_bool().value_unsafe() ? SJ_TRUE : SJ_FALSE;
            break;
        case dom::element_type::NULL_VALUE: m.kind = SJ_NULL; break;
        }
        if (member(ctx, kv.key.data(), kv.key.size(), &m))
            return SJ_ESTOP;
    }
    return SJ_OK;
}

extern "C" int sj_dom_verdict(const char *p, size_t n, int padded, int *root_is_object)
{
    // DOM validates the whole text in its stage 2, no lazy skipping: that is what makes it an
    // independent judge of the On-Demand walk. Kept between calls so a fuzz run allocates once.
    static dom::parser parser;
    dom::element root;
    *root_is_object = 0;
    error_code e = parser.parse(p, n, !padded).get(root);
    if (e)
        return e == MEMALLOC ? -1 : 0;
    *root_is_object = root.type() == dom::element_type::OBJECT;
    return 1;
}
