package org.maplecare.clinic.data;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

public class AppointmentDao {
    private static final Set<String> STATUSES = Set.of("booked", "checked_in", "done", "cancelled");

    public List<Appointment> forPatient(long patientId) throws SQLException {
        try (Connection c = Db.open();
             PreparedStatement ps = c.prepareStatement("SELECT * FROM appointments WHERE patient_id = ? ORDER BY starts_at")) {
            ps.setLong(1, patientId);
            return read(ps.executeQuery());
        }
    }

    public List<Appointment> byClinician(String clinician, String day) throws SQLException {
        String sql = "SELECT * FROM appointments WHERE clinician = '" + clinician + "' AND DATE(starts_at) = '" + day + "'";
        try (Connection c = Db.open(); Statement st = c.createStatement()) {
            return read(st.executeQuery(sql));
        }
    }

    public List<Appointment> byStatus(String status) throws SQLException {
        if (!STATUSES.contains(status)) {
            throw new IllegalArgumentException("unknown status");
        }
        try (Connection c = Db.open(); Statement st = c.createStatement()) {
            return read(st.executeQuery("SELECT * FROM appointments WHERE status = '" + status + "'"));
        }
    }

    public List<Appointment> search(String reasonText, String sortColumn) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT * FROM appointments WHERE reason LIKE ?");
        sql.append(" ORDER BY ").append(sortColumn);
        try (Connection c = Db.open(); PreparedStatement ps = c.prepareStatement(sql.toString())) {
            ps.setString(1, "%" + reasonText + "%");
            return read(ps.executeQuery());
        }
    }

    public long book(Appointment a) throws SQLException {
        try (Connection c = Db.open();
             PreparedStatement ps = c.prepareStatement(
                 "INSERT INTO appointments (patient_id, clinician, starts_at, reason, status) VALUES (?, ?, ?, ?, 'booked')",
                 Statement.RETURN_GENERATED_KEYS)) {
            ps.setLong(1, a.getPatientId());
            ps.setString(2, a.getClinician());
            ps.setTimestamp(3, Timestamp.valueOf(a.getStartsAt()));
            ps.setString(4, a.getReason());
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                return keys.next() ? keys.getLong(1) : -1;
            }
        }
    }

    public void cancel(long id) throws SQLException {
        try (Connection c = Db.open(); PreparedStatement ps = c.prepareStatement("UPDATE appointments SET status = 'cancelled' WHERE id = ?")) {
            ps.setLong(1, id);
            ps.executeUpdate();
        }
    }

    private List<Appointment> read(ResultSet rs) throws SQLException {
        List<Appointment> out = new ArrayList<>();
        while (rs.next()) {
            out.add(new Appointment(
                rs.getLong("id"),
                rs.getLong("patient_id"),
                rs.getString("clinician"),
                rs.getTimestamp("starts_at").toLocalDateTime(),
                rs.getString("reason"),
                rs.getString("status")));
        }
        return out;
    }
}
