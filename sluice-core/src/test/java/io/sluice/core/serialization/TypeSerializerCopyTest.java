package io.sluice.core.serialization;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TypeSerializerCopyTest {
    @Test
    void immutableValuesAreNotCopied() {
        Long big = 123456789L;
        assertThat(Serializers.LONG.copy(big)).isSameAs(big);
        String s = new String("abc");
        assertThat(Serializers.<Object>dynamic().copy(s)).isSameAs(s);
        io.sluice.api.tuple.Tuple2<String, Long> t = io.sluice.api.tuple.Tuple2.of("a", 1L);
        assertThat(Serializers.<Object>dynamic().copy(t)).isSameAs(t);
    }

    @Test
    void mutableValuesAreCopiedDeeply() {
        byte[] bytes = {1, 2};
        java.util.List<Object> list = new java.util.ArrayList<>(java.util.List.of(bytes));
        @SuppressWarnings("unchecked")
        java.util.List<Object> copy = (java.util.List<Object>) Serializers.<Object>dynamic().copy(list);
        bytes[0] = 9;
        list.add("x");
        assertThat(copy).hasSize(1);
        assertThat((byte[]) copy.get(0)).containsExactly(1, 2);
        assertThat(Serializers.BYTES.copy(bytes)).isNotSameAs(bytes).containsExactly(9, 2);
    }
}
