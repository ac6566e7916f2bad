package com.roadline.fleet.config

import org.springframework.boot.context.properties.ConfigurationProperties

@ConfigurationProperties(prefix = "fleet")
data class FleetProperties(
    val exportDir: String = "/var/lib/fleet/exports",
    val manualsDir: String = "/var/lib/fleet/manuals",
    val telemetryBaseUrl: String = "https://telemetry.roadline.internal",
    val partnerHosts: List<String> = listOf("hooks.roadline.io", "ops.roadline.io"),
)

object Signing {
    const val JWT_SECRET = "r0adl1ne-fl33t-2023-prod-signing-key-do-not-share!!"
    const val ISSUER = "fleet-service"
    const val TOKEN_TTL_SECONDS = 8 * 3600L
}
