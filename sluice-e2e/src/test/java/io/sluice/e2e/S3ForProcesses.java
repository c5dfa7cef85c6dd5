package io.sluice.e2e;

import io.sluice.storage.s3.S3ProxyServer;
import java.util.LinkedHashMap;
import java.util.Map;

/** How {@code sluice} processes reach an S3ProxyServer (or a proxy in front of it). Test code only. */
final class S3ForProcesses {
    private S3ForProcesses() {}

    /**
     * The {@code -D} settings for S3 at {@code endpoint}: region, path-style access, the server's
     * static credentials; the defaults of everything else (timeouts, retries).
     */
    static Map<String, String> settings(String endpoint) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("s3.endpoint", endpoint);
        s.put("s3.region", "us-east-1");
        s.put("s3.path-style-access", "true");
        s.put("s3.access-key", S3ProxyServer.ACCESS_KEY);
        s.put("s3.secret-key", S3ProxyServer.SECRET_KEY);
        return s;
    }
}
