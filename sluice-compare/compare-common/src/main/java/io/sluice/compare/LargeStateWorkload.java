package io.sluice.compare;

/**
 * The records and values of {@link Scenario#LARGE_STATE}, shared by every system's job. The source emits
 * 0, 1, 2, ...; record {@code v} updates key {@link #keyOf}: the first {@code keys} records are the keys
 * themselves (the load phase writes every key once), every later one a pseudo-random key (the steady
 * phase). Each update reads the key's value and writes {@link #next} of it: a version count in the first
 * 8 bytes, then pseudo-random bytes (incompressible, so the state on disk is as large as it claims).
 *
 * <p>Stateless and thread-safe.
 */
public final class LargeStateWorkload {
    private LargeStateWorkload() {}

    /** Whether record {@code v} belongs to the load phase. */
    public static boolean loading(long v, long keys) {
        return v < keys;
    }

    /** The key record {@code v} updates. */
    public static long keyOf(long v, long keys) {
        return v < keys ? v : Long.remainderUnsigned(mix(v), keys);
    }

    /** The value after {@code previous} (null: the key has none yet) for {@code key}: {@code valueBytes} bytes. */
    public static byte[] next(long key, byte[] previous, int valueBytes) {
        long version = previous == null ? 1 : readLong(previous) + 1;
        byte[] value = new byte[valueBytes];
        writeLong(value, version);
        long x = mix(key * 0x9E3779B97F4A7C15L + version);
        for (int i = 8; i < valueBytes; i++) {
            if ((i & 7) == 0) {
                x = mix(x);
            }
            value[i] = (byte) (x >>> ((i & 7) << 3));
        }
        return value;
    }

    /** The version count of a value {@link #next} wrote. */
    public static long version(byte[] value) {
        return readLong(value);
    }

    /** SplitMix64's finalizer: a bijection of longs that scatters consecutive inputs. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static long readLong(byte[] b) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[i] & 0xFF);
        }
        return v;
    }

    private static void writeLong(byte[] b, long v) {
        for (int i = 7; i >= 0; i--) {
            b[i] = (byte) v;
            v >>>= 8;
        }
    }
}
