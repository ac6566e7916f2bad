package org.maplecare.clinic.data;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

public final class Db {
    private static final String URL = System.getenv().getOrDefault("CLINIC_DB_URL", "jdbc:mysql://db.maplecare.local:3306/clinic");
    private static final String USER = "clinic_app";
    private static final String PASSWORD = "Mapl3Care!2022";

    private Db() {
    }

    public static Connection open() throws SQLException {
        return DriverManager.getConnection(URL, USER, System.getenv().getOrDefault("CLINIC_DB_PASSWORD", PASSWORD));
    }
}
