package io.sluice.core.serialization;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Reads what a {@link DataOutputBuffer} wrote, from a byte range. Final for inlining; owned by one
 * thread. Reading past the limit throws {@link SerializationException} naming the position, which
 * points at a serializer pair that disagree.
 */
public final class DataInputBuffer {
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

    private byte[] data;
    private int position;
    private int limit;

    public DataInputBuffer() {
        this(new byte[0], 0, 0);
    }

    public DataInputBuffer(byte[] data) {
        this(data, 0, data.length);
    }

    public DataInputBuffer(byte[] data, int offset, int limit) {
        reset(data, offset, limit);
    }

    public void reset(byte[] data, int offset, int limit) {
        this.data = data;
        this.position = offset;
        this.limit = limit;
    }

    private void require(int n) {
        if (position + n > limit) {
            throw new SerializationException("Read of " + n + " bytes at position " + position
                    + " passes the end of the data (" + limit + "): the serializer that wrote this data"
                    + " and the one reading it disagree");
        }
    }

    public boolean hasRemaining() {
        return position < limit;
    }

    public int remaining() {
        return limit - position;
    }

    public int position() {
        return position;
    }

    public void position(int newPosition) {
        if (newPosition < 0 || newPosition > limit) {
            throw new SerializationException("Position " + newPosition + " is outside [0, " + limit + "]");
        }
        this.position = newPosition;
    }

    public byte readByte() {
        require(1);
        return data[position++];
    }

    public boolean readBoolean() {
        return readByte() != 0;
    }

    public short readShort() {
        require(2);
        short v = (short) SHORT.get(data, position);
        position += 2;
        return v;
    }

    public char readChar() {
        return (char) readShort();
    }

    public int readInt() {
        require(4);
        int v = (int) INT.get(data, position);
        position += 4;
        return v;
    }

    public long readLong() {
        require(8);
        long v = (long) LONG.get(data, position);
        position += 8;
        return v;
    }

    public float readFloat() {
        return Float.intBitsToFloat(readInt());
    }

    public double readDouble() {
        return Double.longBitsToDouble(readLong());
    }

    public int readVarInt() {
        int result = 0;
        int shift = 0;
        while (true) {
            byte b = readByte();
            result |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
            shift += 7;
            if (shift > 28) {
                throw new SerializationException("Malformed var-int at position " + position);
            }
        }
    }

    public void readFully(byte[] target) {
        require(target.length);
        System.arraycopy(data, position, target, 0, target.length);
        position += target.length;
    }

    public byte[] readBytes() {
        int len = readInt();
        if (len < 0) {
            return null;
        }
        byte[] b = new byte[len];
        readFully(b);
        return b;
    }

    public String readUTF() {
        int len = readVarInt();
        require(len);
        String s = new String(data, position, len, StandardCharsets.UTF_8);
        position += len;
        return s;
    }
}
