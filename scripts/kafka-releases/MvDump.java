// MvDump: print every org.apache.kafka.server.common.MetadataVersion constant of the
// kafka-server-common jar on the classpath, one tab-separated line each:
//   MV <jar-version> <enum name> <featureLevel> <release> <version string> <production> <didMetadataChange>
// then the release's LATEST_PRODUCTION and latestTesting() levels:
//   LATEST <jar-version> <latestProduction level|-> <latestTesting level|->
// Reflection only, because the accessors changed between releases (3.3 has latest() and no
// LATEST_PRODUCTION; isProduction() appears later).  Written for segscan; no Kafka code copied.
// Run:  java -cp kafka-server-common-X.Y.Z.jar MvDump.java X.Y.Z
import java.lang.reflect.Field;
import java.lang.reflect.Method;

public class MvDump {
    static Object call(Object target, Class<?> c, String name) {
        try {
            Method m = c.getMethod(name);
            return m.invoke(target);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    static Object field(Class<?> c, String name) {
        try {
            Field f = c.getField(name);
            return f.get(null);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    static String level(Class<?> c, Object mv) {
        if (mv == null)
            return "-";
        Object l = call(mv, c, "featureLevel");
        return l == null ? "-" : l.toString();
    }

    public static void main(String[] args) throws Exception {
        String jar = args.length > 0 ? args[0] : "?";
        Class<?> c = Class.forName("org.apache.kafka.server.common.MetadataVersion");
        Object latestProd = call(null, c, "latestProduction");
        if (latestProd == null)
            latestProd = field(c, "LATEST_PRODUCTION");
        Object latestTest = call(null, c, "latestTesting");
        if (latestTest == null)
            latestTest = call(null, c, "latest"); // 3.3 .. 3.5 name of the highest constant
        for (Object mv : c.getEnumConstants()) {
            Object lvl = call(mv, c, "featureLevel");
            if (lvl == null || ((Number) lvl).intValue() < 1)
                continue; // pre-KRaft IBP constants carry level -1
            Object rel = call(mv, c, "shortVersion");
            if (rel == null)
                rel = call(mv, c, "release");
            Object ver = call(mv, c, "version");
            Object prod = call(mv, c, "isProduction");
            String prodS;
            if (prod != null)
                prodS = prod.toString();
            else if (latestProd != null)
                prodS = Boolean.toString(((Number) lvl).intValue() <= ((Number) call(latestProd, c, "featureLevel")).intValue());
            else
                prodS = "-"; // the release has no notion of non-production levels
            Object changed = call(mv, c, "didMetadataChange");
            System.out.println(String.join("\t", "MV", jar, ((Enum<?>) mv).name(), lvl.toString(),
                    String.valueOf(rel), String.valueOf(ver), prodS, String.valueOf(changed)));
        }
        System.out.println(String.join("\t", "LATEST", jar, level(c, latestProd), level(c, latestTest)));
    }
}
