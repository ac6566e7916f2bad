package org.maplecare.clinic.data;

import java.time.LocalDateTime;

public class Appointment {
    private long id;
    private long patientId;
    private String clinician;
    private LocalDateTime startsAt;
    private String reason;
    private String status;

    public Appointment() {
    }

    public Appointment(long id, long patientId, String clinician, LocalDateTime startsAt, String reason, String status) {
        this.id = id;
        this.patientId = patientId;
        this.clinician = clinician;
        this.startsAt = startsAt;
        this.reason = reason;
        this.status = status;
    }

    public long getId() { return id; }
    public long getPatientId() { return patientId; }
    public String getClinician() { return clinician; }
    public LocalDateTime getStartsAt() { return startsAt; }
    public String getReason() { return reason; }
    public String getStatus() { return status; }
    public void setId(long id) { this.id = id; }
    public void setPatientId(long patientId) { this.patientId = patientId; }
    public void setClinician(String clinician) { this.clinician = clinician; }
    public void setStartsAt(LocalDateTime startsAt) { this.startsAt = startsAt; }
    public void setReason(String reason) { this.reason = reason; }
    public void setStatus(String status) { this.status = status; }
}
