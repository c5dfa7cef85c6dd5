package io.sluice.storage.s3;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The ETag S3 gives an object made by a multipart upload: the MD5 of the concatenated binary MD5s of its
 * parts, in hex, then {@code -<number of parts>}. Computable only when every part's ETag is a plain MD5
 * (not under SSE-KMS, for example). Stateless; any thread.
 */
public final class MultipartETag {
    private MultipartETag() {}

    /**
     * The expected ETag (without quotes) of an object made of parts with the ETags {@code partETags}, in order, or
     * {@code null} when a part's ETag is not an MD5 in hex.
     */
    public static String of(List<String> partETags) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            for (String eTag : partETags) {
                String hex = strip(eTag);
                if (hex.length() != 32) {
                    return null;
                }
                md5.update(HexFormat.of().parseHex(hex));
            }
            return HexFormat.of().formatHex(md5.digest()) + "-" + partETags.size();
        } catch (IllegalArgumentException notHex) {
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no MD5", e);
        }
    }

    /** Whether {@code eTag} has the multipart form {@code <hex>-<n>}. */
    public static boolean isMultipart(String eTag) {
        return eTag != null && strip(eTag).matches("[0-9a-fA-F]{32}-\\d+");
    }

    /** {@code eTag} without surrounding quotes. */
    public static String strip(String eTag) {
        String s = eTag.trim();
        return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
    }
}
