package io.sluice.testing.netns;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A tiny TCP echo for {@link TestNetworkTest}, run inside a test host: {@code server <addr> <port>}
 * echoes one int per connection until killed (and prints "listening" once bound); {@code client
 * <addr> <port>} sends 42 and exits 0 if it comes back within 2 s, 1 otherwise.
 */
public final class EchoMain {
    private EchoMain() {}

    public static void main(String[] args) throws Exception {
        InetSocketAddress address = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
        if (args[0].equals("server")) {
            try (ServerSocket server = new ServerSocket()) {
                server.bind(address);
                System.out.println("listening");
                System.out.flush();
                while (true) {
                    try (Socket s = server.accept()) {
                        int v = new DataInputStream(s.getInputStream()).readInt();
                        new DataOutputStream(s.getOutputStream()).writeInt(v);
                    }
                }
            }
        }
        try (Socket s = new Socket()) {
            s.connect(address, 2000);
            s.setSoTimeout(2000);
            new DataOutputStream(s.getOutputStream()).writeInt(42);
            System.exit(new DataInputStream(s.getInputStream()).readInt() == 42 ? 0 : 1);
        } catch (Exception e) {
            System.out.println("client: " + e);
            System.exit(1);
        }
    }
}
