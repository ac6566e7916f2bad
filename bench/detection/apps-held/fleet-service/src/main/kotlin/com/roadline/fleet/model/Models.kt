package com.roadline.fleet.model

import java.time.Instant
import java.time.LocalDate

data class Vehicle(
    val id: Long,
    val plate: String,
    val model: String,
    val depot: String,
    val odometerKm: Int,
    val lastServiced: LocalDate?,
)

data class ServiceRecord(
    val id: Long,
    val vehicleId: Long,
    val performedOn: LocalDate,
    val mechanic: String,
    val notes: String,
    val costCents: Long,
)

data class Driver(
    val id: Long,
    val email: String,
    val displayName: String,
    val passwordHash: String,
    val depot: String,
)

data class TelemetryPing(
    val vehicleId: Long,
    val latitude: Double,
    val longitude: Double,
    val speedKmh: Double,
    val recordedAt: Instant,
)

data class LoginRequest(val email: String, val password: String)

data class RegisterRequest(val email: String, val displayName: String, val password: String, val depot: String)

data class WebhookRequest(val vehicleId: Long, val callbackUrl: String)

data class ExportRequest(val depot: String, val format: String)

data class ApiError(val code: String, val message: String)
