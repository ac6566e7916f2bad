package org.maplecare.clinic.util;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.spec.InvalidKeySpecException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Random;
import javax.crypto.Cipher;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

public final class Credentials {
    private static final SecureRandom RNG = new SecureRandom();
    private static final byte[] RECORD_KEY = "mc-records-key16".getBytes(StandardCharsets.UTF_8);

    private Credentials() {
    }

    public static String hashPin(String pin, String patientId) throws NoSuchAlgorithmException {
        MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
        byte[] out = sha1.digest((patientId + ":" + pin).getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(out);
    }

    public static String hashPassword(String password) throws NoSuchAlgorithmException, InvalidKeySpecException {
        byte[] salt = new byte[16];
        RNG.nextBytes(salt);
        PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, 210_000, 256);
        byte[] hash = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        return Base64.getEncoder().encodeToString(salt) + "$" + Base64.getEncoder().encodeToString(hash);
    }

    public static String visitCode() {
        Random random = new Random(System.nanoTime());
        return String.format("%06d", random.nextInt(1_000_000));
    }

    public static String sessionToken() {
        byte[] bytes = new byte[24];
        RNG.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    public static String sealNote(String note) throws Exception {
        Cipher cipher = Cipher.getInstance("AES/ECB/PKCS5Padding");
        cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(RECORD_KEY, "AES"));
        return Base64.getEncoder().encodeToString(cipher.doFinal(note.getBytes(StandardCharsets.UTF_8)));
    }

    public static String sealAttachment(byte[] key, byte[] content) throws Exception {
        byte[] iv = new byte[12];
        RNG.nextBytes(iv);
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, iv));
        byte[] sealed = cipher.doFinal(content);
        return Base64.getEncoder().encodeToString(iv) + "." + Base64.getEncoder().encodeToString(sealed);
    }
}
