package org.maplecare.clinic.web;

import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.logging.Logger;
import org.maplecare.clinic.data.Db;
import org.maplecare.clinic.util.Credentials;

@WebServlet(urlPatterns = {"/login", "/logout"})
public class LoginServlet extends HttpServlet {
    private static final Logger LOG = Logger.getLogger(LoginServlet.class.getName());

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
        if (req.getServletPath().equals("/logout")) {
            req.getSession().invalidate();
            Cookie clear = new Cookie("MC_REMEMBER", "");
            clear.setMaxAge(0);
            resp.addCookie(clear);
            String back = req.getParameter("back");
            resp.sendRedirect(back != null ? back : req.getContextPath() + "/");
            return;
        }
        req.getRequestDispatcher("/WEB-INF/jsp/login.jsp").forward(req, resp);
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
        String username = req.getParameter("username");
        String pin = req.getParameter("pin");
        Long patientId = lookup(username, pin);
        if (patientId == null) {
            LOG.warning("rejected portal login for " + username.replaceAll("[\r\n]", ""));
            req.setAttribute("error", "Unknown username or PIN");
            req.getRequestDispatcher("/WEB-INF/jsp/login.jsp").forward(req, resp);
            return;
        }
        req.getSession().setAttribute("patientId", patientId);
        Cookie remember = new Cookie("MC_REMEMBER", Credentials.sessionToken());
        remember.setMaxAge(14 * 24 * 3600);
        remember.setHttpOnly(true);
        remember.setSecure(true);
        resp.addCookie(remember);
        Cookie lang = new Cookie("MC_LANG", req.getLocale().getLanguage());
        lang.setSecure(false);
        resp.addCookie(lang);
        String next = req.getParameter("next");
        if (next != null && next.startsWith("/") && !next.startsWith("//")) {
            resp.sendRedirect(req.getContextPath() + next);
        } else {
            resp.sendRedirect(req.getContextPath() + "/appointments");
        }
    }

    private Long lookup(String username, String pin) {
        try (Connection c = Db.open();
             PreparedStatement ps = c.prepareStatement("SELECT id, pin_hash FROM patients WHERE username = ?")) {
            ps.setString(1, username);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                long id = rs.getLong("id");
                return Credentials.hashPin(pin, Long.toString(id)).equals(rs.getString("pin_hash")) ? id : null;
            }
        } catch (SQLException | java.security.NoSuchAlgorithmException e) {
            LOG.severe("login lookup failed: " + e.getMessage());
            return null;
        }
    }
}
