package io.sluice.state.rocksdb;

import java.util.concurrent.CountDownLatch;

/**
 * The process {@link RocksDbNativeLibraryTest} starts and SIGKILLs: loads RocksDB's native library as the backend does,
 * makes one native object, prints {@code loaded} and runs until it is killed.
 */
public final class NativeLibraryLoadingProcess {
    private NativeLibraryLoadingProcess() {}

    public static void main(String[] args) throws InterruptedException {
        RocksDbNativeLibrary.load();
        try (org.rocksdb.Options options = new org.rocksdb.Options()) {
            System.out.println("loaded " + options.getClass().getSimpleName());
        }
        System.out.flush();
        new CountDownLatch(1).await(); // until killed
    }
}
