package io.sluice.core.serialization;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable, big-endian byte sink that serializers write records into.
 *
 * <p>This is the hot path of the data plane: a record writer serializes each record straight into
 * the buffer of its target channel, and hands the filled array to the channel as one network
 * buffer. It is a final class (not an interface) so that the JIT can inline every write.
 *
 * <p>Not thread-safe: owned by exactly one thread at a time (a task thread, or an I/O thread
 * writing a snapshot).
 */
public final class DataOutputBuffer {
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

    private byte[] data;
    private int position;

    public DataOutputBuffer(int initialCapacity) {
        this.data = new byte[Math.max(16, initialCapacity)];
    }

    /** Wraps an existing array (for example a recycled network buffer), writing from offset 0. */
    public DataOutputBuffer(byte[] target) {
        this.data = target;
    }

    private void ensure(int extra) {
        int needed = position + extra;
        if (needed > data.length) {
            data = Arrays.copyOf(data, Math.max(needed, data.length * 2));
        }
    }

    public void writeByte(int v) {
        ensure(1);
        data[position++] = (byte) v;
    }

    public void writeBoolean(boolean v) {
        writeByte(v ? 1 : 0);
    }

    public void writeShort(int v) {
        ensure(2);
        SHORT.set(data, position, (short) v);
        position += 2;
    }

    public void writeChar(int v) {
        writeShort(v);
    }

    public void writeInt(int v) {
        ensure(4);
        INT.set(data, position, v);
        position += 4;
    }

    public void writeLong(long v) {
        ensure(8);
        LONG.set(data, position, v);
        position += 8;
    }

    public void writeFloat(float v) {
        writeInt(Float.floatToIntBits(v));
    }

    public void writeDouble(double v) {
        writeLong(Double.doubleToLongBits(v));
    }

    /** Writes a non-negative int in 1-5 bytes. */
    public void writeVarInt(int v) {
        ensure(5);
        while ((v & ~0x7F) != 0) {
            data[position++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        data[position++] = (byte) v;
    }

    public void write(byte[] bytes) {
        write(bytes, 0, bytes.length);
    }

    public void write(byte[] bytes, int off, int len) {
        ensure(len);
        System.arraycopy(bytes, off, data, position, len);
        position += len;
    }

    /** Writes a length-prefixed byte array ({@code null} allowed). */
    public void writeBytes(byte[] bytes) {
        if (bytes == null) {
            writeInt(-1);
        } else {
            writeInt(bytes.length);
            write(bytes);
        }
    }

    /** Writes a UTF-8 string with a var-int length prefix; {@code null} is not allowed. */
    public void writeUTF(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeVarInt(b.length);
        write(b);
    }

    public int position() {
        return position;
    }

    public void clear() {
        position = 0;
    }

    /** The backing array; valid bytes are {@code [0, position())}. */
    public byte[] array() {
        return data;
    }

    /**
     * Hands the backing array to the caller and continues writing into {@code replacement}, which
     * must be at least 16 bytes long. Used to pass a filled network buffer on without copying.
     */
    public byte[] swap(byte[] replacement) {
        byte[] out = data;
        data = replacement;
        position = 0;
        return out;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(data, position);
    }
}
