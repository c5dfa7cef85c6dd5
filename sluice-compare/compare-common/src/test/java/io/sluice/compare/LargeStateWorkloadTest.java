package io.sluice.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;

class LargeStateWorkloadTest {

    @Test
    void theLoadPhaseWritesEveryKeyOnceThenKeysAreSpreadOverAll() {
        long keys = 1_000;
        Set<Long> loaded = new HashSet<>();
        for (long v = 0; v < keys; v++) {
            assertThat(LargeStateWorkload.loading(v, keys)).isTrue();
            loaded.add(LargeStateWorkload.keyOf(v, keys));
        }
        assertThat(loaded).hasSize((int) keys);
        Set<Long> steady = new HashSet<>();
        for (long v = keys; v < keys + 10 * keys; v++) {
            assertThat(LargeStateWorkload.loading(v, keys)).isFalse();
            long k = LargeStateWorkload.keyOf(v, keys);
            assertThat(k).isBetween(0L, keys - 1);
            steady.add(k);
        }
        assertThat(steady.size()).as("distinct keys among 10 x keys random updates").isGreaterThan(990);
    }

    @Test
    void valuesCountVersionsAndDoNotCompress() {
        byte[] first = LargeStateWorkload.next(42, null, 130);
        byte[] second = LargeStateWorkload.next(42, first, 130);
        assertThat(first).hasSize(130);
        assertThat(LargeStateWorkload.version(first)).isEqualTo(1);
        assertThat(LargeStateWorkload.version(second)).isEqualTo(2);
        assertThat(second).isNotEqualTo(first);
        assertThat(LargeStateWorkload.next(42, null, 130)).as("deterministic").isEqualTo(first);

        byte[] many = new byte[130 * 100];
        for (int k = 0; k < 100; k++) {
            System.arraycopy(LargeStateWorkload.next(k, null, 130), 0, many, k * 130, 130);
        }
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
        deflater.setInput(many);
        deflater.finish();
        byte[] out = new byte[many.length * 2];
        int compressed = deflater.deflate(out);
        deflater.end();
        assertThat(compressed).as("compressed size of 100 values").isGreaterThan(many.length * 9 / 10);
    }
}
