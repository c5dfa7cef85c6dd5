package io.sluice.core.serialization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.tuple.Tuple2;
import io.sluice.api.tuple.Tuple3;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The stable hash equals the JDK's hashCode where that is defined by value, and is defined by value everywhere else. */
class StableHashTest {
    enum Color { RED, GREEN }

    record Plain(long id, String name, int n, double d, boolean b, char c, Long boxed, String absent) {}

    record Outer(Plain plain, UUID uuid, short s, byte by, float f) {}

    record WithEnum(Color color, long id) {}

    record WithList(List<String> names, Map<String, Long> counts) {}

    /** Hashes by identity. */
    static final class Opaque {}

    /** Hashes by value. */
    static final class Valued {
        final int v;

        Valued(int v) {
            this.v = v;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Valued other && other.v == v;
        }

        @Override
        public int hashCode() {
            return v * 17;
        }
    }

    record HoldsOpaque(Opaque opaque) {}

    @Test
    void stringsBoxedPrimitivesAndUuidsHashAsTheJdkDefinesThem() {
        for (Object v : List.of("", "key-1", "\u00e9t\u00e9", 0L, -7L, Long.MAX_VALUE, 3, 'x', (short) 2, (byte) 1, true,
                2.5d, -0.0f, UUID.randomUUID())) {
            assertThat(StableHash.of(v)).as("%s", v).isEqualTo(v.hashCode());
        }
    }

    @Test
    void recordsOfThoseHashAsTheJdkComputesARecordsHashCode() {
        Plain plain = new Plain(42, "a", -3, 1.5, true, 'q', 7L, null);
        Outer outer = new Outer(plain, new UUID(1, 2), (short) 9, (byte) -1, 0.25f);
        assertThat(StableHash.of(plain)).isEqualTo(plain.hashCode());
        assertThat(StableHash.of(outer)).isEqualTo(outer.hashCode());
        // and the JDK's record hashCode is 31 * h + hash(component), from 0
        int h = 0;
        for (Object c : new Object[] {42L, "a", -3, 1.5, true, 'q', 7L, null}) {
            h = 31 * h + (c == null ? 0 : c.hashCode());
        }
        assertThat(plain.hashCode()).isEqualTo(h);
        assertThat(StableHash.of(Tuple2.of("k", 5L))).isEqualTo(Tuple2.of("k", 5L).hashCode());
        assertThat(StableHash.of(Tuple3.of("k", 5L, 1))).isEqualTo(Tuple3.of("k", 5L, 1).hashCode());
    }

    @Test
    void enumsHashByNameWhereverTheyAreNested() {
        assertThat(StableHash.of(Color.GREEN)).isEqualTo("GREEN".hashCode());
        assertThat(StableHash.of(Tuple2.of("k1", Color.RED))).isEqualTo(31 * "k1".hashCode() + "RED".hashCode());
        assertThat(StableHash.of(new WithEnum(Color.RED, 7))).isEqualTo(31 * "RED".hashCode() + Long.hashCode(7));
        assertThat(StableHash.of(List.of(Color.RED, Color.GREEN)))
                .isEqualTo(31 * (31 + "RED".hashCode()) + "GREEN".hashCode());
        assertThat(StableHash.of(Map.of(Color.RED, 1L))).isEqualTo("RED".hashCode() ^ Long.hashCode(1));
        assertThat(StableHash.of(Tuple3.of(Tuple2.of(Color.GREEN, 1), List.of(Color.RED), Map.of("a", Color.RED))))
                .isEqualTo(31 * (31 * (31 * "GREEN".hashCode() + 1) + (31 + "RED".hashCode()))
                        + ("a".hashCode() ^ "RED".hashCode()));
    }

    @Test
    void listsAndMapsHashByContent() {
        List<Object> list = new ArrayList<>(List.of("a", 1L));
        list.add(null);
        assertThat(StableHash.of(list)).isEqualTo(list.hashCode());
        Map<String, Long> linked = new LinkedHashMap<>();
        linked.put("x", 1L);
        linked.put("y", 2L);
        Map<String, Long> tree = new TreeMap<>(Map.of("y", 2L, "x", 1L));
        assertThat(StableHash.of(linked)).isEqualTo(linked.hashCode()).isEqualTo(StableHash.of(tree));
        assertThat(StableHash.of(new WithList(List.of("a"), linked)))
                .isEqualTo(new WithList(List.of("a"), linked).hashCode());
    }

    @Test
    void aClassWithItsOwnHashCodeIsTrustedAndOneThatHashesByIdentityIsRefused() {
        assertThat(StableHash.of(new Valued(3))).isEqualTo(51);
        assertThatThrownBy(() -> StableHash.of(new Opaque())).isInstanceOf(UnstableKeyException.class)
                .hasMessageContaining(Opaque.class.getTypeName()).hasMessageContaining("hash by identity")
                .hasMessageContaining("hashCode() computed from its value");
        assertThatThrownBy(() -> StableHash.of(Tuple2.of("k", new Opaque()))).isInstanceOf(UnstableKeyException.class);
        assertThatThrownBy(() -> StableHash.of(new long[] {1})).isInstanceOf(UnstableKeyException.class)
                .hasMessageContaining("an array");
        // hashable by content, but an array equals only itself: keyed state would never find the key again
        assertThatThrownBy(() -> StableHash.of(new byte[] {1, 2, 3})).isInstanceOf(UnstableKeyException.class)
                .hasMessageContaining("byte[]").hasMessageContaining("equals()").hasMessageContaining("Base64");
        assertThatThrownBy(() -> StableHash.of(List.of("a", new byte[] {1}))).isInstanceOf(UnstableKeyException.class);
        List<Object> cyclic = new ArrayList<>();
        cyclic.add(cyclic);
        assertThatThrownBy(() -> StableHash.of(cyclic)).isInstanceOf(UnstableKeyException.class)
                .hasMessageContaining("contain itself");
    }

    @Test
    void theCheckWhenTheGraphIsBuiltRefusesOnlyTypesThatHashByIdentity() {
        for (Class<?> ok : List.of(String.class, Long.class, Color.class, UUID.class, Plain.class, Outer.class,
                WithEnum.class, WithList.class, Tuple2.class, Tuple3.class, List.class, ArrayList.class, Map.class,
                Object.class, Valued.class, Number.class)) {
            assertThat(StableHash.check(ok)).as(ok.getName()).isNull();
        }
        assertThat(StableHash.check(Opaque.class)).contains(Opaque.class.getTypeName());
        assertThat(StableHash.check(HoldsOpaque.class)).contains(Opaque.class.getTypeName());
        assertThat(StableHash.check(int[].class)).contains("an array");
        assertThat(StableHash.check(byte[].class)).contains("an array");
    }
}
