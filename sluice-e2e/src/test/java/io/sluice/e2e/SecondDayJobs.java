package io.sluice.e2e;

import io.sluice.jar.TestJars;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The user jars of {@link SecondDayITCase}, compiled from source in the test (their classes exist only
 * in those jars, so each job's classes come from its own loader). Test code only.
 */
final class SecondDayJobs {
    /**
     * The key kinds of {@link #KEY_TYPES}, each an output directory of its own: every type the default key
     * serializer writes, boxed primitives, enums, records (nested) and tuples, lists and maps of these.
     */
    static final List<String> KINDS = List.of("string", "long", "integer", "short", "byte", "character", "boolean",
            "double", "float", "enum", "uuid", "record", "nested-record", "tuple2", "tuple3", "list", "map");
    static final int KEYS = 8;

    /** The number of distinct keys of {@code kind}: 8, but 2 for {@code boolean}. */
    static int keysOf(String kind) {
        return kind.equals("boolean") ? 2 : KEYS;
    }

    /**
     * {@code --records N --rate R --output DIR}: numbers 0..N-1, and for each kind of key one keyed
     * count (ValueState) keyed by a value of that kind made from {@code i = v % 8}, writing {@code i,count}
     * lines under {@code DIR/<kind>} ({@code i % 2,count} for the two boolean keys).
     */
    private static final String KEY_TYPES = """
            package userjob;

            import io.sluice.api.DataStream;
            import io.sluice.api.StreamExecutionEnvironment;
            import io.sluice.api.functions.KeySelector;
            import io.sluice.api.functions.MapFunction;
            import io.sluice.api.functions.RichFunction;
            import io.sluice.api.functions.RuntimeContext;
            import io.sluice.api.source.SequenceSource;
            import io.sluice.api.state.ValueState;
            import io.sluice.api.state.ValueStateDescriptor;
            import io.sluice.api.tuple.Tuple2;
            import io.sluice.api.tuple.Tuple3;
            import io.sluice.core.serialization.Serializers;
            import java.util.List;
            import java.util.Map;
            import java.util.UUID;

            public final class KeyTypesJob {
                public enum Color { RED, GREEN, BLUE, CYAN, MAGENTA, YELLOW, BLACK, WHITE }

                public record Point(String name, int n, Color color) {}

                public record Session(Point first, UUID id, Color last) {}

                static int i(Long v) { return (int) (v % 8); }

                public static final class StringKey implements KeySelector<Long, String> {
                    @Override public String getKey(Long v) { return "key-" + i(v); }
                }
                public static final class LongKey implements KeySelector<Long, Long> {
                    @Override public Long getKey(Long v) { return i(v) * 1_000_003L - 4; }
                }
                public static final class IntegerKey implements KeySelector<Long, Integer> {
                    @Override public Integer getKey(Long v) { return -i(v); }
                }
                public static final class ShortKey implements KeySelector<Long, Short> {
                    @Override public Short getKey(Long v) { return (short) (i(v) * 1000 - 3500); }
                }
                public static final class ByteKey implements KeySelector<Long, Byte> {
                    @Override public Byte getKey(Long v) { return (byte) (i(v) * 30 - 100); }
                }
                public static final class CharacterKey implements KeySelector<Long, Character> {
                    @Override public Character getKey(Long v) { return (char) ('\u00e9' + i(v)); }
                }
                public static final class BooleanKey implements KeySelector<Long, Boolean> {
                    @Override public Boolean getKey(Long v) { return i(v) % 2 == 0; }
                }
                public static final class DoubleKey implements KeySelector<Long, Double> {
                    @Override public Double getKey(Long v) { return i(v) * 0.1 - 0.35; }
                }
                public static final class FloatKey implements KeySelector<Long, Float> {
                    @Override public Float getKey(Long v) { return i(v) / 3f; }
                }
                public static final class EnumKey implements KeySelector<Long, Color> {
                    @Override public Color getKey(Long v) { return Color.values()[i(v)]; }
                }
                public static final class UuidKey implements KeySelector<Long, UUID> {
                    @Override public UUID getKey(Long v) { return new UUID(i(v), 31L * i(v)); }
                }
                public static final class RecordKey implements KeySelector<Long, Point> {
                    @Override public Point getKey(Long v) { return new Point("p" + i(v) / 2, i(v), Color.values()[i(v) % 2]); }
                }
                public static final class NestedRecordKey implements KeySelector<Long, Session> {
                    @Override public Session getKey(Long v) {
                        return new Session(new Point("s" + i(v) / 2, i(v) % 2, Color.values()[i(v)]), new UUID(7, i(v) / 4),
                                Color.values()[7 - i(v)]);
                    }
                }
                public static final class Tuple2Key implements KeySelector<Long, Tuple2<String, Color>> {
                    @Override public Tuple2<String, Color> getKey(Long v) { return Tuple2.of("k" + i(v) / 2, Color.values()[i(v) % 2]); }
                }
                public static final class Tuple3Key implements KeySelector<Long, Tuple3<Tuple2<Color, Long>, String, List<Color>>> {
                    @Override public Tuple3<Tuple2<Color, Long>, String, List<Color>> getKey(Long v) {
                        return Tuple3.of(Tuple2.of(Color.values()[i(v) % 4], (long) i(v) / 4), "t", List.of(Color.values()[i(v)]));
                    }
                }
                public static final class ListKey implements KeySelector<Long, List<Object>> {
                    @Override public List<Object> getKey(Long v) { return List.of("a", Color.values()[i(v)], (long) i(v)); }
                }
                public static final class MapKey implements KeySelector<Long, Map<String, Object>> {
                    @Override public Map<String, Object> getKey(Long v) {
                        return Map.of("i", (long) i(v), "color", Color.values()[7 - i(v)], "point", new Point("m", 1, Color.RED));
                    }
                }

                /** Counts per key and writes {@code i % keys,count}. */
                public static final class Count implements MapFunction<Long, String>, RichFunction {
                    private final int keys;
                    private transient ValueState<Long> count;
                    public Count(int keys) { this.keys = keys; }
                    @Override public void open(RuntimeContext context) {
                        count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
                    }
                    @Override public String map(Long v) {
                        Long c = count.value();
                        long next = c == null ? 1 : c + 1;
                        count.update(next);
                        return i(v) % keys + "," + next;
                    }
                }

                public static void main(String[] args) throws Exception {
                    long records = Long.parseLong(args[1]);
                    double rate = Double.parseDouble(args[3]);
                    String output = args[5];
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
                    DataStream<Long> numbers = env.fromSource(SequenceSource.bounded(0, records - 1).withRate(rate), "numbers");
                    Map<String, KeySelector<Long, ?>> kinds = new java.util.LinkedHashMap<>();
                    kinds.put("string", new StringKey());
                    kinds.put("long", new LongKey());
                    kinds.put("integer", new IntegerKey());
                    kinds.put("short", new ShortKey());
                    kinds.put("byte", new ByteKey());
                    kinds.put("character", new CharacterKey());
                    kinds.put("boolean", new BooleanKey());
                    kinds.put("double", new DoubleKey());
                    kinds.put("float", new FloatKey());
                    kinds.put("enum", new EnumKey());
                    kinds.put("uuid", new UuidKey());
                    kinds.put("record", new RecordKey());
                    kinds.put("nested-record", new NestedRecordKey());
                    kinds.put("tuple2", new Tuple2Key());
                    kinds.put("tuple3", new Tuple3Key());
                    kinds.put("list", new ListKey());
                    kinds.put("map", new MapKey());
                    kinds.forEach((kind, selector) -> numbers.keyBy(selector)
                            .map(new Count(kind.equals("boolean") ? 2 : 8)).name("count by " + kind)
                            .writeAsTextAtLeastOnce(output + "/" + kind));
                    env.execute("key types");
                }
            }
            """;

    /**
     * The source of a job (formatted with its version's differences) that counts visits per {@code Visit(page, Kind)} record key, with a
     * record-valued state ({@code Tally}) read back through the job's loader on restore: {@code --records
     * N --rate R --output DIR}, lines {@code v<version>:i,count}, i = v % 8. Version 2 adds an enum constant and
     * writes through another class: the "fixed" jar.
     */
    private static final String VISITS = """
            package userjob;

            import io.sluice.api.StreamExecutionEnvironment;
            import io.sluice.api.functions.KeySelector;
            import io.sluice.api.functions.MapFunction;
            import io.sluice.api.functions.RichFunction;
            import io.sluice.api.functions.RuntimeContext;
            import io.sluice.api.source.SequenceSource;
            import io.sluice.api.state.ValueState;
            import io.sluice.api.state.ValueStateDescriptor;
            import io.sluice.core.serialization.Serializers;

            public final class VisitsJob {
                public enum Kind { VIEW, CLICK %s }

                public record Visit(String page, Kind kind) {}

                public record Tally(long n, Kind last) {}

                public static final class ByVisit implements KeySelector<Long, Visit> {
                    @Override public Visit getKey(Long v) { return new Visit("/page/" + (v %% 4), Kind.values()[(int) (v %% 8) / 4]); }
                }

                public static final class %s implements MapFunction<Long, String>, RichFunction {
                    private transient ValueState<Object> tally;
                    @Override public void open(RuntimeContext context) {
                        tally = context.getState(new ValueStateDescriptor<>("tally", Serializers.dynamic()));
                    }
                    @Override public String map(Long v) {
                        Tally t = (Tally) tally.value();
                        Tally next = new Tally(t == null ? 1 : t.n() + 1, Kind.values()[(int) (v %% 8) / 4]);
                        tally.update(next);
                        return "v%s:" + (v %% 8) + "," + next.n();
                    }
                }

                public static void main(String[] args) throws Exception {
                    long records = Long.parseLong(args[1]);
                    double rate = Double.parseDouble(args[3]);
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
                    SequenceSource source = SequenceSource.bounded(0, records - 1);
                    env.fromSource(rate > 0 ? source.withRate(rate) : source, "visits")
                            .keyBy(new ByVisit()).map(new %s()).name("tally per visit").writeAsTextAtLeastOnce(args[5]);
                    env.execute("visits v%s");
                }
            }
            """;

    private SecondDayJobs() {}

    static Path keyTypesJar(Path dir) {
        return TestJars.jar(dir, "key-types.jar", "userjob.KeyTypesJob", Map.of("userjob.KeyTypesJob", KEY_TYPES));
    }

    /** Version 1 or 2 of the visits job. */
    static Path visitsJar(Path dir, int version) {
        String tallyClass = version == 1 ? "CountVisits" : "CountVisitsFixed";
        String source = VISITS.formatted(version == 1 ? "" : ", SHARE", tallyClass, version, tallyClass, version);
        return TestJars.jar(dir, "visits-v" + version + ".jar", "userjob.VisitsJob", Map.of("userjob.VisitsJob", source));
    }
}
