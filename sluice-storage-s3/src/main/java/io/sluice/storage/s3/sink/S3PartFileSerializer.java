package io.sluice.storage.s3.sink;

import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.TypeSerializer;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes {@link S3PartFile}s into checkpoints. Format version 1: {@code byte 1, UTF bucket, UTF key,
 * UTF uploadId, long length, int parts, parts × (int number, UTF eTag)}. Stateless; any thread.
 */
final class S3PartFileSerializer implements TypeSerializer<S3PartFile> {
    private static final long serialVersionUID = 1L;
    static final int VERSION = 1;

    @Override
    public void serialize(S3PartFile value, DataOutputBuffer out) {
        out.writeByte(VERSION);
        out.writeUTF(value.bucket());
        out.writeUTF(value.key());
        out.writeUTF(value.uploadId());
        out.writeLong(value.length());
        out.writeInt(value.parts().size());
        for (S3PartFile.Part p : value.parts()) {
            out.writeInt(p.number());
            out.writeUTF(p.eTag());
        }
    }

    @Override
    public S3PartFile deserialize(DataInputBuffer in) {
        int version = in.readByte();
        if (version != VERSION) {
            throw new IllegalStateException("S3 exactly-once file sink: the checkpoint holds a part file in format"
                    + " version " + version + ", this build reads version " + VERSION
                    + "; restore with the Sluice version that wrote it");
        }
        String bucket = in.readUTF();
        String key = in.readUTF();
        String uploadId = in.readUTF();
        long length = in.readLong();
        int n = in.readInt();
        List<S3PartFile.Part> parts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            parts.add(new S3PartFile.Part(in.readInt(), in.readUTF()));
        }
        return new S3PartFile(bucket, key, uploadId, parts, length);
    }

    @Override
    public String typeName() {
        return "S3PartFile";
    }
}
