package com.example.notes;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Random;
import javax.servlet.http.Cookie;
import javax.servlet.http.HttpServletResponse;

public class AccountService {
    private static final String DB_PASSWORD = "s3cr3t-Pa55w0rd!";

    public String resetToken() {
        Random random = new Random();
        return Long.toHexString(random.nextLong());
    }

    public String resetTokenSafe() {
        SecureRandom random = new SecureRandom();
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return java.util.HexFormat.of().formatHex(bytes);
    }

    public byte[] hashPassword(String password) throws Exception {
        MessageDigest md = MessageDigest.getInstance("MD5");
        return md.digest(password.getBytes());
    }

    public byte[] fingerprint(byte[] data) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        return md.digest(data);
    }

    public void login(HttpServletResponse response, String sessionId) throws IOException {
        Cookie cookie = new Cookie("SESSION", sessionId);
        cookie.setSecure(false);
        cookie.setHttpOnly(true);
        response.addCookie(cookie);
    }

    public void loginSafe(HttpServletResponse response, String sessionId) throws IOException {
        Cookie cookie = new Cookie("SESSION", sessionId);
        cookie.setSecure(true);
        cookie.setHttpOnly(true);
        response.addCookie(cookie);
    }

    String connectionPassword() {
        return DB_PASSWORD;
    }
}
