package com.example.notes;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpSession;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.HtmlUtils;

@RestController
public class NoteController {
    private static final Path UPLOADS = Paths.get("/srv/notes/uploads");
    private final JdbcTemplate jdbc;

    public NoteController(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @GetMapping("/notes/search")
    public List<Map<String, Object>> search(@RequestParam String owner) {
        return jdbc.queryForList("SELECT id, title FROM notes WHERE owner = '" + owner + "'");
    }

    @GetMapping("/notes/by-owner")
    public List<Map<String, Object>> byOwner(@RequestParam String owner) {
        return jdbc.queryForList("SELECT id, title FROM notes WHERE owner = ?", owner);
    }

    @GetMapping(value = "/notes/greet", produces = "text/html")
    @ResponseBody
    public String greet(@RequestParam String name) {
        return "<h1>Notes of " + name + "</h1>";
    }

    @GetMapping(value = "/notes/greet-safe", produces = "text/html")
    @ResponseBody
    public String greetSafe(@RequestParam String name) {
        return "<h1>Notes of " + HtmlUtils.htmlEscape(name) + "</h1>";
    }

    @GetMapping("/notes/attachment/{name}")
    public byte[] attachment(@PathVariable String name) throws Exception {
        return Files.readAllBytes(UPLOADS.resolve(name));
    }

    @GetMapping("/notes/attachment-safe/{name}")
    public byte[] attachmentSafe(@PathVariable String name) throws Exception {
        Path file = UPLOADS.resolve(name).normalize();
        if (!file.startsWith(UPLOADS)) {
            throw new IllegalArgumentException("bad name");
        }
        return Files.readAllBytes(file);
    }

    @PostMapping("/notes/remember")
    public String remember(HttpServletRequest request, HttpSession session) {
        session.setAttribute("lastTitle", request.getParameter("title"));
        return "ok";
    }
}
