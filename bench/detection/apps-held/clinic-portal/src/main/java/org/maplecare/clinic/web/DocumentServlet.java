package org.maplecare.clinic.web;

import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

@WebServlet("/documents/*")
public class DocumentServlet extends HttpServlet {
    private static final String STORE = "/srv/clinic/documents";
    private static final Path LETTERS = Paths.get("/srv/clinic/letters").toAbsolutePath().normalize();

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
        String kind = req.getPathInfo() == null ? "/" : req.getPathInfo();
        switch (kind) {
            case "/scan" -> sendScan(req, resp);
            case "/letter" -> sendLetter(req, resp);
            case "/thumbnail" -> thumbnail(req, resp);
            default -> resp.sendError(HttpServletResponse.SC_NOT_FOUND);
        }
    }

    private void sendScan(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String patient = req.getParameter("patient");
        String name = req.getParameter("file");
        File file = new File(STORE + File.separator + patient, name);
        if (!file.isFile()) {
            resp.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        resp.setContentType("application/pdf");
        try (InputStream in = new FileInputStream(file)) {
            in.transferTo(resp.getOutputStream());
        }
    }

    private void sendLetter(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Path letter = LETTERS.resolve(req.getParameter("name")).normalize();
        if (!letter.startsWith(LETTERS) || !Files.isRegularFile(letter)) {
            resp.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        resp.setContentType("application/pdf");
        Files.copy(letter, resp.getOutputStream());
    }

    private void thumbnail(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String name = req.getParameter("file");
        String size = req.getParameter("size");
        if (size == null || !size.matches("\\d{2,3}")) {
            size = "160";
        }
        Process p = Runtime.getRuntime().exec(new String[] {"/usr/bin/convert", "-thumbnail", size + "x" + size, STORE + "/tmp/current.pdf[0]", "png:-"});
        resp.setContentType("image/png");
        p.getInputStream().transferTo(resp.getOutputStream());
        if (name != null && !name.isBlank()) {
            Runtime.getRuntime().exec(new String[] {"/bin/sh", "-c", "/usr/local/bin/audit-log thumbnail " + name + " >> /var/log/clinic/audit.log"});
        }
    }
}
