package io.sluice.rest;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * Which bind addresses serve this machine only. Literal addresses are judged without a lookup;
 * another name is resolved (at start-up), and one that does not resolve counts as not loopback.
 * Stateless; any thread.
 */
final class LoopbackAddresses {
    private LoopbackAddresses() {}

    static boolean isLoopback(String host) {
        String h = host.strip().toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        if (h.equals("localhost")) {
            return true;
        }
        try {
            return InetAddress.getByName(h).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
