package segscan.oracle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A tiny JSON writer for the fixtures. Hand-rolled rather than Jackson so the layout is ours to
 * pick: containers that hold only scalars go on one line (one batch, one index entry, one event
 * per line), everything else is indented. That keeps the committed fixtures small and their
 * diffs readable when the oracle is re-run.
 *
 * <p>Values: null, Boolean, Number (integral types printed exactly), CharSequence, Map (insertion
 * order kept: callers use LinkedHashMap), Collection, Object[].
 */
public final class Json {
    private Json() {
    }

    /** A JSON text written verbatim (Kafka's own JSON of a metadata record, kept as it printed it). */
    public static final class Raw {
        final String text;

        public Raw(String text) {
            this.text = text;
        }
    }

    /** A LinkedHashMap builder: {@code obj("a", 1, "b", 2)}. */
    public static Map<String, Object> obj(Object... kv) {
        if (kv.length % 2 != 0) throw new IllegalArgumentException("odd key/value list");
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    public static void write(Path p, Object v) throws IOException {
        StringBuilder sb = new StringBuilder();
        emit(sb, v, 0);
        sb.append('\n');
        Files.write(p, sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** One value on one line, no indentation (for NDJSON). */
    public static String line(Object v) {
        StringBuilder sb = new StringBuilder();
        flat(sb, v);
        return sb.toString();
    }

    private static boolean isScalar(Object v) {
        return !(v instanceof Map || v instanceof Collection || v instanceof Object[]);
    }

    private static boolean isLeaf(Object v) {
        if (v instanceof Map) {
            for (Object o : ((Map<?, ?>) v).values()) if (!isScalar(o)) return false;
            return true;
        }
        if (v instanceof Collection) {
            for (Object o : (Collection<?>) v) {
                if (!isScalar(o) && !(isShortLeaf(o))) return false;
            }
            return true;
        }
        if (v instanceof Object[]) return isLeaf(java.util.Arrays.asList((Object[]) v));
        return true;
    }

    /** A pair such as [offset, position] may sit inside a one-line list. */
    private static boolean isShortLeaf(Object v) {
        if (v instanceof Collection && ((Collection<?>) v).size() <= 3) {
            for (Object o : (Collection<?>) v) if (!isScalar(o)) return false;
            return true;
        }
        return false;
    }

    private static void indent(StringBuilder sb, int n) {
        for (int i = 0; i < n; i++) sb.append("  ");
    }

    private static void emit(StringBuilder sb, Object v, int depth) {
        if (isScalar(v) || isLeaf(v)) {
            flat(sb, v);
            return;
        }
        if (v instanceof Object[]) v = java.util.Arrays.asList((Object[]) v);
        if (v instanceof Map) {
            Map<?, ?> m = (Map<?, ?>) v;
            sb.append("{\n");
            int i = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                indent(sb, depth + 1);
                str(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                emit(sb, e.getValue(), depth + 1);
                if (++i < m.size()) sb.append(',');
                sb.append('\n');
            }
            indent(sb, depth);
            sb.append('}');
        } else {
            Collection<?> c = (Collection<?>) v;
            sb.append("[\n");
            int i = 0;
            for (Object o : c) {
                indent(sb, depth + 1);
                emit(sb, o, depth + 1);
                if (++i < c.size()) sb.append(',');
                sb.append('\n');
            }
            indent(sb, depth);
            sb.append(']');
        }
    }

    private static void flat(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof Boolean) {
            sb.append(v.toString());
        } else if (v instanceof Raw) {
            sb.append(((Raw) v).text);
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) sb.append("null");
            else if (d == Math.rint(d) && Math.abs(d) < 1e15) sb.append((long) d);
            else sb.append(d);
        } else if (v instanceof Number) {
            sb.append(v.toString());
        } else if (v instanceof Map) {
            sb.append('{');
            int i = 0;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (i++ > 0) sb.append(", ");
                str(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                flat(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof Collection || v instanceof Object[]) {
            Collection<?> c = v instanceof Collection ? (Collection<?>) v : java.util.Arrays.asList((Object[]) v);
            sb.append('[');
            int i = 0;
            for (Object o : c) {
                if (i++ > 0) sb.append(", ");
                flat(sb, o);
            }
            sb.append(']');
        } else {
            str(sb, v.toString());
        }
    }

    private static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
            }
        }
        sb.append('"');
    }
}
