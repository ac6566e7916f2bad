package com.roadline.fleet.service

import com.roadline.fleet.model.Driver
import com.roadline.fleet.model.ServiceRecord
import com.roadline.fleet.model.Vehicle
import org.springframework.jdbc.core.JdbcTemplate
import org.springframework.jdbc.core.RowMapper
import org.springframework.stereotype.Repository

@Repository
class VehicleRepository(private val jdbc: JdbcTemplate) {

    private val vehicleMapper = RowMapper { rs, _ ->
        Vehicle(
            id = rs.getLong("id"),
            plate = rs.getString("plate"),
            model = rs.getString("model"),
            depot = rs.getString("depot"),
            odometerKm = rs.getInt("odometer_km"),
            lastServiced = rs.getDate("last_serviced")?.toLocalDate(),
        )
    }

    private val recordMapper = RowMapper { rs, _ ->
        ServiceRecord(
            id = rs.getLong("id"),
            vehicleId = rs.getLong("vehicle_id"),
            performedOn = rs.getDate("performed_on").toLocalDate(),
            mechanic = rs.getString("mechanic"),
            notes = rs.getString("notes"),
            costCents = rs.getLong("cost_cents"),
        )
    }

    private val sortColumns = mapOf(
        "plate" to "plate",
        "odometer" to "odometer_km",
        "serviced" to "last_serviced",
    )

    fun findById(id: Long): Vehicle? =
        jdbc.query("SELECT * FROM vehicles WHERE id = ?", vehicleMapper, id).firstOrNull()

    fun search(depot: String, plateFragment: String): List<Vehicle> {
        val sql = buildSearch(depot, plateFragment)
        return jdbc.query(sql, vehicleMapper)
    }

    private fun buildSearch(depot: String, plateFragment: String): String {
        val where = StringBuilder("WHERE depot = '").append(depot).append("'")
        if (plateFragment.isNotBlank()) {
            where.append(" AND plate ILIKE '%").append(plateFragment).append("%'")
        }
        return "SELECT * FROM vehicles $where ORDER BY plate"
    }

    fun listByDepot(depot: String, sort: String): List<Vehicle> {
        val column = sortColumns[sort] ?: "plate"
        return jdbc.query("SELECT * FROM vehicles WHERE depot = ? ORDER BY $column", vehicleMapper, depot)
    }

    fun history(vehicleId: Long, orderBy: String): List<ServiceRecord> =
        jdbc.query("SELECT * FROM service_records WHERE vehicle_id = $vehicleId ORDER BY $orderBy", recordMapper)

    fun addRecord(record: ServiceRecord) {
        jdbc.update(
            "INSERT INTO service_records (vehicle_id, performed_on, mechanic, notes, cost_cents) VALUES (?, ?, ?, ?, ?)",
            record.vehicleId,
            java.sql.Date.valueOf(record.performedOn),
            record.mechanic,
            record.notes,
            record.costCents,
        )
        jdbc.update("UPDATE vehicles SET last_serviced = ? WHERE id = ?", java.sql.Date.valueOf(record.performedOn), record.vehicleId)
    }

    fun findDriver(email: String): Driver? =
        jdbc.query(
            "SELECT * FROM drivers WHERE lower(email) = lower(?)",
            { rs, _ ->
                Driver(
                    rs.getLong("id"),
                    rs.getString("email"),
                    rs.getString("display_name"),
                    rs.getString("password_hash"),
                    rs.getString("depot"),
                )
            },
            email,
        ).firstOrNull()

    fun saveDriver(email: String, displayName: String, passwordHash: String, depot: String) {
        jdbc.update(
            "INSERT INTO drivers (email, display_name, password_hash, depot) VALUES (?, ?, ?, ?)",
            email,
            displayName,
            passwordHash,
            depot,
        )
    }

    fun countOverdue(): Int {
        val sql = "SELECT count(*) FROM vehicles WHERE last_serviced < now() - " + OVERDUE_INTERVAL
        return jdbc.queryForObject(sql, Int::class.java) ?: 0
    }

    companion object {
        private const val OVERDUE_INTERVAL = "interval '90 days'"
    }
}
