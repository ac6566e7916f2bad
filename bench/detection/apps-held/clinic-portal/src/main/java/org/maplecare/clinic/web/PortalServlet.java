package org.maplecare.clinic.web;

import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.List;
import org.maplecare.clinic.data.Appointment;
import org.maplecare.clinic.data.AppointmentDao;

@WebServlet(urlPatterns = {"/appointments", "/search", "/notice"})
public class PortalServlet extends HttpServlet {
    private final AppointmentDao dao = new AppointmentDao();

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
        HttpSession session = req.getSession(false);
        Long patientId = session == null ? null : (Long) session.getAttribute("patientId");
        if (patientId == null) {
            resp.sendRedirect(req.getContextPath() + "/login?next=" + req.getServletPath());
            return;
        }
        try {
            switch (req.getServletPath()) {
                case "/appointments" -> {
                    req.setAttribute("appointments", dao.forPatient(patientId));
                    req.getRequestDispatcher("/WEB-INF/jsp/appointments.jsp").forward(req, resp);
                }
                case "/search" -> {
                    String q = req.getParameter("q");
                    List<Appointment> hits = dao.search(q == null ? "" : q, "starts_at");
                    req.setAttribute("results", hits.stream().filter(a -> a.getPatientId() == patientId).toList());
                    req.getRequestDispatcher("/WEB-INF/jsp/search.jsp").forward(req, resp);
                }
                default -> notice(req, resp);
            }
        } catch (SQLException e) {
            throw new ServletException("could not load appointments", e);
        }
    }

    private void notice(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String title = req.getParameter("title");
        resp.setContentType("text/html;charset=UTF-8");
        PrintWriter out = resp.getWriter();
        out.println("<html><body><h1>Clinic notice</h1>");
        out.println("<h2>" + title + "</h2>");
        out.println("<p>Please arrive ten minutes before your appointment.</p></body></html>");
    }
}
