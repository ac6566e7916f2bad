package com.roadline.fleet.service

import com.roadline.fleet.config.Signing
import com.roadline.fleet.model.Driver
import io.jsonwebtoken.Claims
import io.jsonwebtoken.Jwts
import io.jsonwebtoken.security.Keys
import org.slf4j.LoggerFactory
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder
import org.springframework.stereotype.Service
import java.security.MessageDigest
import java.security.SecureRandom
import java.util.Base64
import java.util.Date
import kotlin.random.Random

@Service
class AccountService(private val vehicles: VehicleRepository) {

    private val log = LoggerFactory.getLogger(AccountService::class.java)
    private val encoder = BCryptPasswordEncoder(12)
    private val signingKey = Keys.hmacShaKeyFor(Signing.JWT_SECRET.toByteArray())
    private val secureRandom = SecureRandom()
    private val mapper = com.fasterxml.jackson.databind.ObjectMapper()

    fun register(email: String, displayName: String, password: String, depot: String) {
        val hash = encoder.encode(password)
        vehicles.saveDriver(email.trim().lowercase(), displayName, hash, depot)
        log.info("registered new driver account in depot {}", depot.replace(Regex("[\\r\\n]"), "_"))
    }

    fun authenticate(email: String, password: String): Driver? {
        val driver = vehicles.findDriver(email)
        if (driver == null || !matches(password, driver.passwordHash)) {
            log.warn("failed login for $email")
            return null
        }
        return driver
    }

    private fun matches(password: String, stored: String): Boolean =
        if (stored.startsWith("md5:")) stored.removePrefix("md5:") == legacyDigest(password) else encoder.matches(password, stored)

    fun legacyDigest(password: String): String {
        val digest = MessageDigest.getInstance("MD5").digest(password.toByteArray())
        return digest.joinToString("") { "%02x".format(it) }
    }

    fun fingerprint(manual: ByteArray): String {
        val digest = MessageDigest.getInstance("SHA-256").digest(manual)
        return Base64.getUrlEncoder().withoutPadding().encodeToString(digest)
    }

    fun issueToken(driver: Driver): String {
        val now = System.currentTimeMillis()
        return Jwts.builder()
            .setSubject(driver.id.toString())
            .setIssuer(Signing.ISSUER)
            .claim("depot", driver.depot)
            .setIssuedAt(Date(now))
            .setExpiration(Date(now + Signing.TOKEN_TTL_SECONDS * 1000))
            .signWith(signingKey)
            .compact()
    }

    fun verify(token: String): Claims =
        Jwts.parserBuilder().setSigningKey(signingKey).requireIssuer(Signing.ISSUER).build().parseClaimsJws(token).body

    fun depotFromHeader(token: String): String? {
        val parts = token.split(".")
        if (parts.size < 2) return null
        val payload = String(Base64.getUrlDecoder().decode(parts[1]))
        return mapper.readTree(payload).path("depot").asText(null)
    }

    fun resetCode(): String {
        val chars = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
        return (1..8).map { chars[Random.nextInt(chars.length)] }.joinToString("")
    }

    fun sessionId(): String {
        val bytes = ByteArray(32)
        secureRandom.nextBytes(bytes)
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes)
    }
}
